import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';
import { frame, writeBurst } from '../fixtures/bursts';
import { setTakenAt, tempRoot, writeScenes } from '../helpers/burst-shoot';

// Issue 17, similarity: generated bursts (one scene with noise, ±1/3 and ±1 EV, 2% and 5%
// crops, re-encoding at another quality, resizing), undated copies of one picture, and
// distinct scenes drawn with the same flat palette (one of them shot in the middle of a
// burst). Through the real CLI: the groups come out exactly, and similar-to ranks a
// scene's frames first.

let root: string;
let photos: string;
let library: string;
let burstA: string[];
let burstB: string[];
let copies: string[];
let distinct: string[];

const cli = (args: string[]): CliRun => tagsmithSync(library, args, { timeout: 300_000 });

const sorted = (a: string[]): string[] => [...a].sort();

beforeAll(async () => {
  root = tempRoot('tagsmith-similar-');
  photos = join(root, 'photos');
  library = join(root, 'lib');
  burstA = (await writeBurst(join(photos, 'shoot'), 21, 'A')).map((f) => f.path);
  burstB = (await writeBurst(join(photos, 'shoot'), 22, 'B')).map((f) => f.path);
  // One picture exported three ways, years apart or undated: near-duplicates at any time.
  mkdirSync(join(photos, 'exports'), { recursive: true });
  const original = await frame(23);
  copies = [join(photos, 'exports', 'harbour.jpg'), join(photos, 'exports', 'harbour_small.jpg'), join(photos, 'exports', 'harbour_web.jpg')];
  writeFileSync(copies[0], original);
  await sharp(original).resize(640).jpeg({ quality: 85 }).toFile(copies[1]);
  await sharp(original).jpeg({ quality: 30 }).toFile(copies[2]);
  // Distinct scenes, same palette; D_24 is shot in the middle of burst A.
  distinct = await writeScenes(join(photos, 'shoot'), [24, 25, 26, 27], (seed) => `D_${seed}.jpg`);
  await setTakenAt([
    ...burstA.map((p, i) => [p, `2024:05:01 10:00:${String(i * 2).padStart(2, '0')}`] as const),
    ...burstB.map((p, i) => [p, `2024:05:01 11:30:${String(i).padStart(2, '0')}`] as const),
    [distinct[0], '2024:05:01 10:00:05'],
    [distinct[1], '2024:05:01 10:00:17'],
    [copies[0], '2019:08:10 18:00:00'],
    [copies[1], '2023:01:02 09:00:00'],
  ]);
  const idx = cli(['index', photos]);
  expect(idx.code, idx.stderr).toBe(0);
}, 600_000);

interface Groups {
  groups: { members: string[]; best: string }[];
}

describe('similarity groups (tagsmith similar)', () => {
  it('stores a fingerprint and a sharpness for every picture during the scan', () => {
    const db = new Database(join(library, 'library.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('SELECT a.name, f.phash_hi, f.sharpness FROM assets a LEFT JOIN asset_fingerprints f ON f.asset_id = a.id').all() as { name: string; phash_hi: number | null; sharpness: number | null }[];
      expect(rows).toHaveLength(burstA.length + burstB.length + copies.length + distinct.length);
      for (const r of rows) {
        expect(r.phash_hi, r.name).not.toBeNull();
        expect(r.sharpness, r.name).toBeGreaterThan(0);
      }
    } finally {
      db.close();
    }
  });

  it('finds exactly the bursts and the near-duplicates, each picture in one group, distinct scenes alone', () => {
    const r = cli(['--json', 'similar']);
    expect(r.code, r.stderr).toBe(0);
    const { groups } = r.json<Groups>();
    const got = groups.map((g) => sorted(g.members)).sort((a, b) => a[0].localeCompare(b[0]));
    const want = [sorted(burstA), sorted(burstB), sorted(copies)].sort((a, b) => a[0].localeCompare(b[0]));
    expect(got).toEqual(want);
    for (const g of groups) expect(g.members).toContain(g.best);
  });

  it('suggests the sharpest frame when no quality score was measured', () => {
    const { groups } = cli(['--json', 'similar', ...burstA]).json<Groups>();
    expect(groups).toHaveLength(1);
    const db = new Database(join(library, 'library.sqlite'), { readonly: true });
    try {
      const sharpest = db.prepare(
        `SELECT f.folder_path AS dir, a.rel_path FROM asset_fingerprints s JOIN assets a ON a.id = s.asset_id
           JOIN (SELECT id, path AS folder_path FROM folders) f ON f.id = a.folder_id
          WHERE a.name LIKE 'A\\_%' ESCAPE '\\' ORDER BY s.sharpness DESC LIMIT 1`,
      ).get() as { dir: string; rel_path: string };
      expect(groups[0].best).toBe(join(sharpest.dir, sharpest.rel_path));
    } finally {
      db.close();
    }
  });

  it('limits the groups to the named files or a search', () => {
    const r = cli(['--json', 'similar', burstA[0], burstA[1], distinct[0], copies[0]]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<Groups>().groups.map((g) => sorted(g.members))).toEqual([sorted([burstA[0], burstA[1]])]);
    const q = cli(['--json', 'similar', '--query', 'harbour']);
    expect(q.code, q.stderr).toBe(0);
    expect(q.json<Groups>().groups.map((g) => sorted(g.members))).toEqual([sorted(copies)]);
  });

  it('computes missing fingerprints before it answers (a library catalogued before them)', () => {
    const db = new Database(join(library, 'library.sqlite'));
    try {
      db.prepare('DELETE FROM asset_fingerprints').run();
    } finally {
      db.close();
    }
    const { groups } = cli(['--json', 'similar']).json<Groups>();
    expect(groups.map((g) => g.members.length).sort()).toEqual([3, burstA.length, burstB.length].sort());
  });
});

describe('tagsmith similar-to', () => {
  it("ranks the scene's frames first, nearest first", () => {
    const r = cli(['--json', 'similar-to', burstA[0], '--limit', '12']);
    expect(r.code, r.stderr).toBe(0);
    const list = r.json<{ path: string; distance: number }[]>();
    expect(sorted(list.slice(0, burstA.length - 1).map((n) => n.path))).toEqual(sorted(burstA.slice(1)));
    for (let i = 1; i < list.length; i++) expect(list[i].distance).toBeGreaterThanOrEqual(list[i - 1].distance);
    expect(list.map((n) => n.path)).not.toContain(burstA[0]);
  });

  it('ranks an export and its copies together', () => {
    const list = cli(['--json', 'similar-to', copies[1], '--limit', '2']).json<{ path: string; distance: number }[]>();
    expect(sorted(list.map((n) => n.path))).toEqual(sorted([copies[0], copies[2]]));
  });

  it('says why a file without a picture cannot be compared', async () => {
    const wav = join(photos, 'note.wav');
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + 800, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(8000, 24);
    header.writeUInt32LE(8000, 28);
    header.writeUInt16LE(1, 32);
    header.writeUInt16LE(8, 34);
    header.write('data', 36);
    header.writeUInt32LE(800, 40);
    writeFileSync(wav, Buffer.concat([header, Buffer.alloc(800, 128)]));
    expect(cli(['index', photos]).code).toBe(0);
    const r = cli(['similar-to', wav]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/audio file: it has no picture to compare/);
    const bad = cli(['similar-to', burstA[0], '--limit', '0']);
    expect(bad.code).toBe(2);
  });
});
