import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src-main/library/migrations';
import { openDb } from '../../src-main/library/db';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'tagsmith-db-')), 'library.sqlite');

describe('catalogue migrations', () => {
  it('are numbered 1..N without gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('open a new catalogue at the latest version, in WAL with foreign keys on', () => {
    const db = openDb(tmp());
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('each step N-1 -> N keeps existing rows', () => {
    for (const m of migrations) {
      const file = tmp();
      const before = openDb(file, { upTo: m.version - 1 });
      if (m.version > 1) {
        before.prepare('INSERT INTO folders (path, added_at) VALUES (?, ?)').run('/photos', 1);
      }
      before.close();
      const after = openDb(file, { upTo: m.version });
      expect(after.pragma('user_version', { simple: true })).toBe(m.version);
      if (m.version > 1) expect(after.prepare('SELECT path FROM folders').pluck().all()).toEqual(['/photos']);
      after.close();
    }
  });

  it('11 (creative vectorize) rebuilds creative_tasks without losing a task, a part or a retry link', () => {
    const file = tmp();
    const before = openDb(file, { upTo: 10 });
    before.prepare("INSERT INTO creative_tasks (id, kind, endpoint, params, status, created_at) VALUES (1, 'edit', 'imageEdit', '{}', 'failed', 1)").run();
    before.prepare("INSERT INTO creative_tasks (id, kind, endpoint, params, status, created_at, retry_of) VALUES (2, 'edit', 'imageEdit', '{}', 'done', 2, 1)").run();
    before.prepare('INSERT INTO creative_task_parts (task_id, part, job_id, remote_task_id) VALUES (1, 0, 5, ?), (2, 0, 6, ?)').run('t-1', 't-2');
    expect(() => before.prepare("INSERT INTO creative_tasks (kind, endpoint, params, status, created_at) VALUES ('vectorize', 'imageVectorize', '{}', 'waiting', 3)").run()).toThrow(/CHECK/);
    before.close();
    const after = openDb(file);
    expect(after.prepare('SELECT id, retry_of FROM creative_tasks ORDER BY id').all()).toEqual([{ id: 1, retry_of: null }, { id: 2, retry_of: 1 }]);
    expect(after.prepare('SELECT task_id, job_id, remote_task_id FROM creative_task_parts ORDER BY task_id').all()).toEqual([
      { task_id: 1, job_id: 5, remote_task_id: 't-1' }, { task_id: 2, job_id: 6, remote_task_id: 't-2' },
    ]);
    after.prepare("INSERT INTO creative_tasks (id, kind, endpoint, params, status, created_at) VALUES (3, 'vectorize', 'imageVectorize', '{}', 'waiting', 3)").run();
    after.prepare('DELETE FROM creative_tasks WHERE id = 1').run();
    expect(after.prepare('SELECT task_id FROM creative_task_parts').pluck().all()).toEqual([2]);
    expect(after.prepare('SELECT retry_of FROM creative_tasks WHERE id = 2').pluck().get()).toBeNull();
    expect(after.pragma('foreign_key_check')).toEqual([]);
    after.close();
  });

  it('13 (exposure) adds empty exposure columns and marks the pictures, not the videos, to be read by the next scan', () => {
    const file = tmp();
    const before = openDb(file, { upTo: 12 });
    before.prepare('INSERT INTO folders (id, path, added_at) VALUES (1, ?, 0)').run('/p');
    const add = before.prepare(
      `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, size, mtime_ms, stack_key, added_at, indexed_at, content_hash)
       VALUES (1, ?, ?, ?, ?, ?, 1, 1, ?, 0, 0, 'h')`,
    );
    add.run('a.jpg', 'a.jpg', 'jpg', 'image', 'jpeg', 'a');
    add.run('b.mp4', 'b.mp4', 'mp4', 'video', 'mp4', 'b');
    before.close();
    const after = openDb(file, { upTo: 13 });
    expect(after.prepare('SELECT name, iso, aperture, focal_length, shutter, flash, exposure_read, content_hash FROM assets ORDER BY name').all()).toEqual([
      { name: 'a.jpg', iso: null, aperture: null, focal_length: null, shutter: null, flash: null, exposure_read: 0, content_hash: 'h' },
      { name: 'b.mp4', iso: null, aperture: null, focal_length: null, shutter: null, flash: null, exposure_read: 1, content_hash: 'h' },
    ]);
    expect(() => after.prepare("UPDATE assets SET flash = 2 WHERE name = 'a.jpg'").run()).toThrow(/CHECK/);
    after.close();
  });

  it('14 (metadata block disagreement) adds an empty JSON column that the next reading fills in', () => {
    const file = tmp();
    const before = openDb(file, { upTo: 13 });
    before.prepare('INSERT INTO folders (id, path, added_at) VALUES (1, ?, 0)').run('/p');
    before.prepare(
      `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, size, mtime_ms, stack_key, added_at, indexed_at, content_hash)
       VALUES (1, 'a.jpg', 'a.jpg', 'jpg', 'image', 'jpeg', 1, 1, 'a', 0, 0, 'h')`,
    ).run();
    before.close();
    const after = openDb(file, { upTo: 14 });
    expect(after.prepare('SELECT name, block_disagreement, content_hash FROM assets').all()).toEqual([{ name: 'a.jpg', block_disagreement: null, content_hash: 'h' }]);
    after.prepare('UPDATE assets SET block_disagreement = ?').run(JSON.stringify({ fields: ['caption'], took: 'iptc', digest: 'differs' }));
    expect(() => after.prepare("UPDATE assets SET block_disagreement = 'not json'").run()).toThrow(/CHECK/);
    after.close();
  });

  it('refuses a catalogue made by a newer version, with a message saying what to do', () => {
    const file = tmp();
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    expect(() => openDb(file)).toThrow(/newer Tagsmith.*Update Tagsmith/);
  });

  it('keeps the full-text index in step with the assets table', () => {
    const db = openDb(tmp());
    db.prepare('INSERT INTO folders (id, path, added_at) VALUES (1, ?, 0)').run('/p');
    db.prepare(
      `INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, size, mtime_ms, stack_key, added_at, indexed_at, caption)
       VALUES (1, 'a.jpg', 'a.jpg', 'jpg', 'image', 'jpeg', 1, 1, 'a', 0, 0, 'Sunset über Köln')`,
    ).run();
    const match = (q: string) => db.prepare('SELECT rowid FROM assets_fts WHERE assets_fts MATCH ?').pluck().all(q);
    expect(match('"uber"*')).toEqual([1]);
    db.prepare("UPDATE assets SET caption = 'Morning fog'").run();
    expect(match('"uber"*')).toEqual([]);
    expect(match('"fog"')).toEqual([1]);
    db.prepare('DELETE FROM assets').run();
    expect(match('"fog"')).toEqual([]);
    db.close();
  });
});
