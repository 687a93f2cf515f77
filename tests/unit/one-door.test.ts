import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The catalogue's one door (issue 33): every change to catalogue state is written by
// src-main/catalogue/ and recorded in its change log. This test reads the source for SQL that
// writes a catalogue table (INSERT, UPDATE, DELETE, REPLACE) anywhere else and fails on it.
//
// Catalogue tables are what a library holds and a studio would share: its folders and photos,
// their fields, keywords, collections, the keyword list, presets, the AI's suggestions and
// their review, what analysis runs measured of each photo, the edit log and the change log.
// Not counted: what one machine keeps for itself or derives again (scan_errors, file_state, thumbnails, similarity, search indexes, the rename
// journal), the job queue and its runs, upload records, creative tasks and settings.
//
// WHAT STILL WRITES OUTSIDE THE DOOR. Each line is a file and the catalogue tables it still
// writes itself. The list only shrinks (it is empty since the scan, the media hash and the
// thumbnail queue write through catalogue/scanned-assets.ts): a new writer fails this test
// (route it through src-main/catalogue/), and so does a line whose file no longer writes that
// table (delete the line).
const NOT_YET_THROUGH_THE_DOOR: Record<string, string[]> = {};

const CATALOGUE_TABLES = new Set([
  'folders',
  'assets',
  'keywords',
  'asset_keywords',
  'asset_stock',
  'collections',
  'collection_assets',
  'keyword_vocabulary',
  'metadata_presets',
  'suggestions',
  'caption_suggestions',
  'asset_quality',
  'asset_ugc_quality',
  'asset_faces',
  'asset_face_scans',
  'asset_colors',
  'asset_color_scans',
  'edits',
  'edit_changes',
  'change_log',
  'catalogue_clock',
  'collection_uids',
]);

const ROOT = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

// INSERT [OR x] INTO t, REPLACE INTO t, UPDATE [OR x] t, DELETE FROM t (upper case, as the SQL here is written).
const WRITE = /\b(?:INSERT(?:\s+OR\s+[A-Z]+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+[A-Z]+)?|DELETE\s+FROM)\s+(?:main\.)?["`]?([a-z_][a-z0-9_]*)/g;

/** The catalogue tables a source text writes. */
export function tablesWritten(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
  const found = new Set<string>();
  for (const m of code.matchAll(WRITE)) if (CATALOGUE_TABLES.has(m[1])) found.add(m[1]);
  return [...found].sort();
}

/** Every file outside the door that writes a catalogue table, with the tables. */
function writersOutsideTheDoor(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of sourceFiles('src-main')) {
    if (file.startsWith('src-main/catalogue/') || file.startsWith('src-main/library/migrations/')) continue;
    const tables = tablesWritten(readFileSync(join(ROOT, file), 'utf8'));
    if (tables.length) out[file] = tables;
  }
  return out;
}

describe('one door for every change to the catalogue', () => {
  it('finds catalogue writes in SQL as the source spells them, and nothing in comments or other tables', () => {
    expect(tablesWritten("prepared(db, 'UPDATE assets SET rating = ? WHERE id = ?')")).toEqual(['assets']);
    expect(tablesWritten('`INSERT OR IGNORE INTO collection_assets (a) VALUES (?)`')).toEqual(['collection_assets']);
    expect(tablesWritten("'DELETE FROM edits WHERE id = ?'; 'INSERT INTO jobs (x) VALUES (1)'")).toEqual(['edits']);
    expect(tablesWritten("'INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET a = excluded.a'")).toEqual([]);
    expect(tablesWritten('// UPDATE assets is said here in a comment\n/* DELETE FROM folders */ const x = 1;')).toEqual([]);
    // The door itself writes them all.
    expect(tablesWritten(readFileSync(join(ROOT, 'src-main/catalogue/edit-log.ts'), 'utf8'))).toEqual(['assets', 'edit_changes', 'edits']);
  });

  it('has the scan, the media hash and the thumbnail queue write the catalogue through the door', () => {
    for (const file of ['src-main/library/scan.ts', 'src-main/library/media-hash.ts', 'src-main/library/thumb-queue.ts']) {
      expect(tablesWritten(readFileSync(join(ROOT, file), 'utf8')), file).toEqual([]);
    }
    expect(tablesWritten(readFileSync(join(ROOT, 'src-main/catalogue/scanned-assets.ts'), 'utf8'))).toEqual(['assets', 'folders']);
  });

  it('has no SQL writing a catalogue table outside src-main/catalogue/ beyond the shrinking list', () => {
    const found = writersOutsideTheDoor();
    const fresh = Object.entries(found).flatMap(([file, tables]) => tables.filter((t) => !NOT_YET_THROUGH_THE_DOOR[file]?.includes(t)).map((t) => `${file}: ${t}`));
    expect(fresh, 'these write the catalogue without going through src-main/catalogue/ (route them through the door)').toEqual([]);
    const gone = Object.entries(NOT_YET_THROUGH_THE_DOOR).flatMap(([file, tables]) => tables.filter((t) => !found[file]?.includes(t)).map((t) => `${file}: ${t}`));
    expect(gone, 'these no longer write the catalogue themselves: take them off NOT_YET_THROUGH_THE_DOOR').toEqual([]);
  });
});
