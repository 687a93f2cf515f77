// Crash safety: kill -9 at random moments during a scan, a keyword batch against the
// simulator, a metadata export, result downloads and batch renames — 135 kills in all. The simulator runs in
// this process, so it outlives every kill and its meter is the truth about billing. After
// each kill: the catalogue passes integrity_check, every acked edit is there, no job is lost
// or billed twice, every original is its old or its new bytes and opens.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { JobQueue, builtinHandlers } from '../../src-main/jobs';
import { openLibrary } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { hashFile } from '../../src-main/library/hash';
import { getAssetKeywords } from '../../src-main/library/keywords';
import { closeMetadataReader, sharedExifTool } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { renameAssets } from '../../src-main/library/rename';
import { undo } from '../../src-main/library/edits';
import { fieldsFromTags } from '../../src-main/metadata/fields';
import { readTags } from '../../src-main/metadata/file-writer';
import { removeStaleTemps, writeAssetMetadata } from '../../src-main/metadata/writer';
import { ServiceClient } from '../../src-main/service/client';
import { attachWorkflows, startKeywordRun } from '../../src-main/workflows';
import { seedAssets, seedFolder } from '../helpers/seed';
import { startSimulator } from '../simulator/index.js';
import { ackedKeywords, integrity, lostEdits, runAndKill, sha, shaFile } from './helpers';

const KILLS = { scan: 30, keywords: 30, export: 30, download: 15, rename: 30 };
const creds = { clientId: 'crash', clientSecret: 'crash-secret' };
const base = mkdtempSync(join(tmpdir(), 'tagsmith-crash-'));
const killCounts: Record<string, number> = {};

afterAll(async () => {
  await closeMetadataReader();
  rmSync(base, { recursive: true, force: true });
  console.log(`crash suite: kills ${JSON.stringify(killCounts)} (total ${Object.values(killCounts).reduce((a, n) => a + n, 0)})`);
});

const colour = (i: number): string => `#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}`;

async function jpeg(path: string, width: number, height: number, i: number): Promise<void> {
  await sharp({ create: { width, height, channels: 3, background: colour(i) } })
    .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
    .jpeg({ quality: 80 })
    .toFile(path);
}

function dbQuery<T>(dbFile: string, fn: (db: Database.Database) => T): T {
  const db = new Database(dbFile);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Decodes fully and exiftool reads it without an error: the file opens. */
async function opens(path: string): Promise<void> {
  const meta = await sharp(path).metadata();
  expect(meta.width, path).toBeGreaterThan(0);
  await sharp(path).raw().toBuffer();
  const tags = (await sharedExifTool().readRaw(path, ['-G1'])) as unknown as Record<string, unknown>;
  expect(tags['ExifTool:Error'] ?? null, path).toBeNull();
  expect((tags.errors as unknown[] | undefined) ?? [], path).toEqual([]);
}

describe.concurrent('kill -9 at random moments', () => {
  it(`during scans (${KILLS.scan} kills): catalogue intact, acked edits kept, originals untouched, then a full scan completes`, async () => {
    const dir = join(base, 'scan');
    const root = join(dir, 'photos');
    const files: string[] = [];
    for (let i = 0; i < 260; i++) {
      const sub = join(root, `roll${i % 4}`, i % 3 ? '' : 'picks');
      mkdirSync(sub, { recursive: true });
      files.push(join(sub, i % 13 === 0 ? `IMG_${i}.png` : `IMG_${i}.jpg`));
    }
    for (let i = 0; i < files.length; i += 16) {
      await Promise.all(files.slice(i, i + 16).map((f, j) => (f.endsWith('.png')
        ? sharp({ create: { width: 80, height: 60, channels: 3, background: colour(i + j) } }).png().toFile(f)
        : jpeg(f, 80, 60, i + j))));
    }
    const original = new Map(files.map((f) => [f, shaFile(f)]));
    const dataDir = join(dir, 'data');
    const ctx = openLibrary(dataDir);
    const folderId = addFolder(ctx, root).id;
    const dbFile = ctx.paths.dbFile;
    const cacheDir = ctx.paths.cacheDir;
    ctx.db.close();

    const acks: { assetId: number; keyword: string }[] = [];
    let midScan = 0;
    for (let k = 0; k < KILLS.scan; k++) {
      // Every other kill comes after an edit was acknowledged (so there are acked edits to lose,
      // however slowly a busy machine starts); the others at any moment after ready.
      const d = await runAndKill('scan-driver.ts', { DATA_DIR: dataDir, FOLDER_ID: String(folderId) }, 1200, k % 2 === 0 ? /^ack / : undefined);
      killCounts.scan = (killCounts.scan ?? 0) + 1;
      acks.push(...ackedKeywords(d.lines));
      expect(integrity(dbFile), `kill ${k}`).toBe('ok');
      expect(lostEdits(dbFile, acks), `kill ${k}: acked edits lost`).toEqual([]);
      const thumbs = dbQuery(dbFile, (db) => {
        if (db.prepare('SELECT scan_checkpoint FROM folders WHERE id = ?').pluck().get(folderId)) midScan++;
        return db.prepare('SELECT thumb FROM assets WHERE thumb IS NOT NULL').pluck().all() as string[];
      });
      // A thumbnail the catalogue points to is complete (written to a temp name, then renamed).
      for (const t of thumbs) expect(existsSync(join(cacheDir, t)), `kill ${k}: ${t}`).toBe(true);
    }
    // Indexing never writes to an original, killed or not.
    for (const [f, h] of original) expect(shaFile(f), f).toBe(h);

    const ctx2 = openLibrary(dataDir);
    try {
      const summary = await scanFolder(ctx2, folderId);
      expect(summary.errors).toEqual([]);
      const live = ctx2.db.prepare('SELECT rel_path, thumb FROM assets WHERE removed_at IS NULL').all() as { rel_path: string; thumb: string | null }[];
      expect(live).toHaveLength(files.length);
      expect(new Set(live.map((r) => r.rel_path)).size).toBe(files.length);
      for (const r of live) {
        expect(r.thumb, r.rel_path).not.toBeNull();
        expect((await sharp(join(cacheDir, r.thumb!)).metadata()).width).toBeGreaterThan(0);
      }
      expect(ctx2.db.prepare('SELECT scan_checkpoint FROM folders WHERE id = ?').pluck().get(folderId)).toBeNull();
      expect(ctx2.db.prepare('SELECT COUNT(*) FROM scan_errors').pluck().get()).toBe(0);
    } finally {
      ctx2.db.close();
    }
    expect(lostEdits(dbFile, acks)).toEqual([]);
    expect(acks.length).toBeGreaterThanOrEqual(Math.ceil(KILLS.scan / 2));
    console.log(`scan: ${KILLS.scan} kills, ${midScan} landed mid-scan, ${acks.length} acked edits kept`);
  }, 600_000);

  it(`during a keyword batch against the simulator (${KILLS.keywords} kills): no job lost, no picture billed twice`, async () => {
    const sim = await startSimulator({ port: 0, accounts: [creds] });
    const dir = join(base, 'keywords');
    mkdirSync(dir, { recursive: true });
    const N = 180;
    // Each picture is 300 px high and 300+i wide: the derivative the service receives keeps
    // that size, so the simulator's log tells which picture every billed call was for.
    const widthOf = new Map<string, number>();
    const assets = [];
    const folder = join(dir, 'photos');
    mkdirSync(folder);
    for (let i = 0; i < N; i += 12) {
      await Promise.all(Array.from({ length: Math.min(12, N - i) }, (_, j) => jpeg(join(folder, `k${i + j}.jpg`), 300 + i + j, 300, i + j)));
    }
    const dataDir = join(dir, 'data');
    const ctx = openLibrary(dataDir);
    const folderId = seedFolder(ctx.db, folder);
    for (let i = 0; i < N; i++) {
      const f = join(folder, `k${i}.jpg`);
      widthOf.set(f, 300 + i);
      assets.push({ folderId, relPath: `k${i}.jpg`, contentHash: await hashFile(f), format: 'jpeg' });
    }
    const ids = seedAssets(ctx.db, assets);
    const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
    const q0 = new JobQueue({ db: ctx.db, client, handlers: builtinHandlers });
    const run = await startKeywordRun(ctx, q0, { assetIds: ids });
    expect(run.jobs).toBe(N);
    const dbFile = ctx.paths.dbFile;
    ctx.db.close();

    const billedPerPicture = (): Map<number, number> => {
      const m = new Map<number, number>();
      for (const e of sim.log) if (e.path === '/v1/keywords' && e.status === 200) m.set(e.imageSize!.width, (m.get(e.imageSize!.width) ?? 0) + 1);
      return m;
    };
    const env = { DATA_DIR: dataDir, SIM_URL: sim.url, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret };
    const acks: { assetId: number; keyword: string }[] = [];
    try {
      for (let k = 0; k < KILLS.keywords; k++) {
        // A few slow answers keep requests on the wire when the kill comes.
        sim.inject({ kind: 'latency', path: '/v1/keywords', count: 2, ms: 500 });
        const d = await runAndKill('keyword-driver.ts', env, 900);
        killCounts.keywords = (killCounts.keywords ?? 0) + 1;
        acks.push(...ackedKeywords(d.lines));
        expect(integrity(dbFile), `kill ${k}`).toBe('ok');
        expect(lostEdits(dbFile, acks), `kill ${k}: acked edits lost`).toEqual([]);
        expect(dbQuery(dbFile, (db) => db.prepare("SELECT COUNT(*) FROM jobs WHERE kind = 'analyze'").pluck().get()), `kill ${k}: jobs lost`).toBe(N);
        for (const [w, n] of billedPerPicture()) expect(n, `kill ${k}: picture ${w - 300} billed ${n} times`).toBe(1);
      }
      sim.clearFaults();
      // The restart that runs to completion.
      const ctx2 = openLibrary(dataDir);
      const q = new JobQueue({ db: ctx2.db, client, handlers: builtinHandlers, tuning: { retryBaseMs: 50, retryMaxMs: 200 } });
      const off = attachWorkflows(ctx2, q);
      q.start();
      await q.waitForIdle();
      const jobs = q.listJobs({ limit: 10_000 });
      expect(jobs).toHaveLength(N);
      const states: Record<string, number> = {};
      for (const j of jobs) states[j.state] = (states[j.state] ?? 0) + 1;
      expect(Object.keys(states).sort()).toEqual(Object.keys(states).filter((s) => s === 'done' || s === 'unknown').sort());
      const perPicture = billedPerPicture();
      for (const j of jobs) {
        const w = widthOf.get((JSON.parse(q.store.get(j.id)!.payload) as { file: string }).file)!;
        const n = perPicture.get(w) ?? 0;
        if (j.state === 'done' && !j.fromCache) expect(n, `job ${j.id}`).toBe(1);
        else expect(n, `job ${j.id} (${j.state})`).toBeLessThanOrEqual(1);
      }
      const billed = sim.billed()[creds.clientId].keywords;
      expect(billed).toBe([...perPicture.values()].reduce((a, n) => a + n, 0));
      expect(billed).toBeLessThanOrEqual(N);
      // Every finished job landed as suggestions of the run.
      const landed = ctx2.db.prepare("SELECT COUNT(*) FROM ai_run_assets WHERE run_id = ? AND state = 'done'").pluck().get(run.runId);
      expect(landed).toBe(states.done);
      off();
      await q.stop();
      ctx2.db.close();
      expect(lostEdits(dbFile, acks)).toEqual([]);
      console.log(`keywords: ${KILLS.keywords} kills, jobs ${JSON.stringify(states)}, billed ${billed} of ${N}, ${acks.length} acked edits kept`);
    } finally {
      await client.close();
      await sim.close();
    }
  }, 600_000);

  it(`during a metadata export (${KILLS.export} kills): every original is its old or its new bytes and opens, no temp left`, async () => {
    const dir = join(base, 'export');
    const folder = join(dir, 'photos');
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 24; i++) await jpeg(join(folder, `x${i}.jpg`), 96, 64, i);
    const dataDir = join(dir, 'data');
    const ctx = openLibrary(dataDir);
    const folderId = addFolder(ctx, folder).id;
    await scanFolder(ctx, folderId);
    const assets = ctx.db.prepare('SELECT id, rel_path FROM assets').all() as { id: number; rel_path: string }[];
    expect(assets).toHaveLength(24);
    const pathOf = new Map(assets.map((a) => [a.id, join(folder, a.rel_path)]));
    const lastKnown = new Map(assets.map((a) => [a.id, shaFile(pathOf.get(a.id)!)]));
    const verified = new Set<string>();
    const dbFile = ctx.paths.dbFile;
    ctx.db.close();

    const acks: { assetId: number; keyword: string }[] = [];
    let newBytesAtKill = 0;
    let writes = 0;
    for (let k = 0; k < KILLS.export; k++) {
      // Every third kill comes after a write was acknowledged, so kills land among writes
      // however slowly a busy machine starts exiftool; the others at any moment after ready.
      const d = await runAndKill('export-driver.ts', { DATA_DIR: dataDir, DIR: folder }, 1200, k % 3 === 0 ? /^wrote \d+ / : undefined);
      killCounts.export = (killCounts.export ?? 0) + 1;
      acks.push(...ackedKeywords(d.lines));
      for (const l of d.lines) {
        const m = /^wrote (\d+) ([0-9a-f]{64})$/.exec(l);
        if (m) { lastKnown.set(Number(m[1]), m[2]); writes++; }
        expect(l.startsWith('failed'), l).toBe(false);
      }
      expect(integrity(dbFile), `kill ${k}`).toBe('ok');
      expect(lostEdits(dbFile, acks), `kill ${k}: acked edits lost`).toEqual([]);
      // The killed writer's temp files are swept before the next batch.
      await removeStaleTemps(folder);
      expect(readdirSync(folder).filter((n) => n.includes('.tagsmith-')), `kill ${k}: temps`).toEqual([]);
      for (const [id, path] of pathOf) {
        const now = shaFile(path);
        if (now !== lastKnown.get(id)) {
          // Not the bytes last acknowledged: then the write in flight completed, and the file
          // holds exactly the keywords the catalogue holds for it.
          const kw = fieldsFromTags(await readTags(path)).keywords;
          const want = dbQuery(dbFile, (db) => getAssetKeywords(db, id));
          expect([...kw].sort(), `kill ${k}: asset ${id} is neither its old nor its new bytes`).toEqual([...want].sort());
          newBytesAtKill++;
          lastKnown.set(id, now);
        }
        if (!verified.has(now)) {
          await opens(path);
          verified.add(now);
        }
      }
    }

    const ctx2 = openLibrary(dataDir);
    try {
      await removeStaleTemps(folder);
      for (const [id, path] of pathOf) {
        const r = await writeAssetMetadata(ctx2, id);
        expect(r.status, r.error ?? '').not.toBe('failed');
        await opens(path);
        expect([...fieldsFromTags(await readTags(path)).keywords].sort()).toEqual([...getAssetKeywords(ctx2.db, id)].sort());
      }
      expect(readdirSync(folder).filter((n) => !/^x\d+\.jpg$/.test(n))).toEqual([]);
    } finally {
      ctx2.db.close();
    }
    expect(lostEdits(dbFile, acks)).toEqual([]);
    expect(writes).toBeGreaterThan(0);
    console.log(`export: ${KILLS.export} kills, ${writes} acked writes, ${newBytesAtKill} kills landed between rename and ack, ${acks.length} acked edits kept`);
  }, 600_000);

  it(`during batch renames (${KILLS.rename} kills): each file renamed with the catalogue following it, or untouched; sidecars and pairs with it`, async () => {
    const dir = join(base, 'rename');
    const folder = join(dir, 'photos');
    mkdirSync(folder, { recursive: true });
    const xmp = (nick: string): string =>
      `<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>\n<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>` +
      `<rdf:Description rdf:about='' xmlns:xmp='http://ns.adobe.com/xap/1.0/'><xmp:Nickname>${nick}</xmp:Nickname></rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end='w'?>\n`;
    // 16 JPEGs with their own IMG.jpg.xmp sidecar, and 4 RAW+JPEG pairs sharing an IMG.xmp.
    for (let i = 0; i < 16; i++) {
      await jpeg(join(folder, `x${i}.jpg`), 64 + i, 48, i);
      writeFileSync(join(folder, `x${i}.jpg.xmp`), xmp(`own ${i}`));
    }
    for (let i = 0; i < 4; i++) {
      await sharp({ create: { width: 80 + i, height: 60, channels: 3, background: colour(100 + i) } }).tiff().toFile(join(folder, `IMG_${i}.CR2`));
      await jpeg(join(folder, `IMG_${i}.JPG`), 80 + i, 60, 100 + i);
      writeFileSync(join(folder, `IMG_${i}.xmp`), xmp(`pair ${i}`));
    }
    const dataDir = join(dir, 'data');
    const ctx = openLibrary(dataDir);
    const folderId = addFolder(ctx, folder).id;
    await scanFolder(ctx, folderId);
    const rows = (): { id: number; rel_path: string; stack_key: string }[] =>
      ctx.db.prepare('SELECT id, rel_path, stack_key FROM assets WHERE removed_at IS NULL ORDER BY id').all() as { id: number; rel_path: string; stack_key: string }[];
    const initial = rows();
    expect(initial).toHaveLength(24);
    const ids = initial.map((r) => r.id);
    const fileSha = new Map(initial.map((r) => [r.id, shaFile(join(folder, r.rel_path))]));
    const ownSidecar = new Map(initial.filter((r) => r.rel_path.startsWith('x')).map((r) => [r.id, shaFile(join(folder, r.rel_path + '.xmp'))]));
    // Each pair: its two ids and the sha of the shared sidecar.
    const pairs = [0, 1, 2, 3].map((i) => ({
      ids: initial.filter((r) => r.stack_key === `img_${i}`).map((r) => r.id),
      sidecar: shaFile(join(folder, `IMG_${i}.xmp`)),
    }));
    expect(pairs.every((p) => p.ids.length === 2)).toBe(true);
    const dbFile = ctx.paths.dbFile;
    ctx.db.close();

    const acks: { assetId: number; keyword: string }[] = [];
    let batches = 0;
    let midBatch = 0;
    for (let k = 0; k < KILLS.rename; k++) {
      const d = await runAndKill('rename-driver.ts', { DATA_DIR: dataDir }, 800, k % 2 === 0 ? /^renamed / : undefined);
      killCounts.rename = (killCounts.rename ?? 0) + 1;
      acks.push(...ackedKeywords(d.lines));
      batches += d.lines.filter((l) => l.startsWith('renamed ')).length;
      for (const l of d.lines) expect(l.startsWith('failed'), l).toBe(false);
      expect(integrity(dbFile), `kill ${k}`).toBe('ok');
      if (dbQuery(dbFile, (db) => db.prepare('SELECT count(*) FROM rename_journal').pluck().get() as number) > 0) midBatch++;

      // Opening the catalogue settles the journal: then every file is where the catalogue says.
      const c = openLibrary(dataDir);
      try {
        expect(c.db.prepare('SELECT count(*) FROM rename_journal').pluck().get(), `kill ${k}: journal left`).toBe(0);
        const now = c.db.prepare('SELECT id, rel_path, stack_key FROM assets ORDER BY id').all() as { id: number; rel_path: string; stack_key: string }[];
        expect(now.map((r) => r.id), `kill ${k}: assets`).toEqual(ids);
        const expected: string[] = [];
        for (const r of now) {
          const at = join(folder, r.rel_path);
          expect(existsSync(at) && shaFile(at) === fileSha.get(r.id), `kill ${k}: asset ${r.id} is not at ${r.rel_path}`).toBe(true);
          expected.push(r.rel_path);
          if (ownSidecar.has(r.id)) {
            expect(existsSync(at + '.xmp') && shaFile(at + '.xmp') === ownSidecar.get(r.id), `kill ${k}: the sidecar of ${r.rel_path}`).toBe(true);
            expected.push(r.rel_path + '.xmp');
          }
        }
        for (const p of pairs) {
          const [a, b] = p.ids.map((id) => now.find((r) => r.id === id)!);
          expect(a.stack_key, `kill ${k}: pair ${a.rel_path} / ${b.rel_path} no longer matches`).toBe(b.stack_key);
          const shared = a.rel_path.slice(0, a.rel_path.lastIndexOf('.')) + '.xmp';
          expect(existsSync(join(folder, shared)) && shaFile(join(folder, shared)) === p.sidecar, `kill ${k}: the shared sidecar ${shared}`).toBe(true);
          expected.push(shared);
        }
        expect(readdirSync(folder).sort(), `kill ${k}: files on disk`).toEqual(expected.sort());
      } finally {
        c.db.close();
      }
      expect(lostEdits(dbFile, acks), `kill ${k}: acked edits lost`).toEqual([]);
    }

    // Afterwards a scan sees nothing added, removed or moved, and renaming and undo still work.
    const ctx2 = openLibrary(dataDir);
    try {
      const summary = await scanFolder(ctx2, folderId);
      expect(summary).toMatchObject({ added: 0, removed: 0, moved: 0 });
      const r = await renameAssets(ctx2, { assetIds: ids, template: 'final-{seq:3}' });
      expect(r.failed).toEqual([]);
      expect(readdirSync(folder).filter((n) => !n.startsWith('final-'))).toEqual([]);
      expect(await undo(ctx2)).toContain('Undo: rename');
      expect(readdirSync(folder).filter((n) => n.startsWith('final-'))).toEqual([]);
    } finally {
      ctx2.db.close();
    }
    expect(lostEdits(dbFile, acks)).toEqual([]);
    expect(batches).toBeGreaterThan(0);
    expect(midBatch).toBeGreaterThan(0);
    console.log(`rename: ${KILLS.rename} kills, ${batches} acked batches, ${midBatch} kills landed inside a batch, ${acks.length} acked edits kept`);
  }, 600_000);

  it(`during result downloads and async tasks (${KILLS.download} kills): files complete or absent, no task created twice`, async () => {
    const sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 30, startedMs: 60 } });
    const dir = join(base, 'download');
    const out = join(dir, 'big');
    const results = join(dir, 'results');
    mkdirSync(out, { recursive: true });
    const big = randomBytes(24 * 1024 * 1024);
    const bigSha = sha(big);
    sim.files.set('big.bin', { mime: 'application/octet-stream', data: big });
    const dataDir = join(dir, 'data');
    const ctx = openLibrary(dataDir);
    const client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
    const q0 = new JobQueue({ db: ctx.db, client, handlers: builtinHandlers });
    const M = 10;
    for (let i = 0; i < M; i++) q0.enqueue({ kind: 'task', payload: { endpoint: 'imageGenerate', params: { prompt: `crash ${i}` }, downloadTo: results } });
    const dbFile = ctx.paths.dbFile;
    ctx.db.close();
    const env = { DATA_DIR: dataDir, SIM_URL: sim.url, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret, URL: `${sim.url}/files/big.bin`, DIR: out };
    const acked = new Set<number>();
    const creates = () => sim.log.filter((e) => e.path === '/v1/image_generate' && e.status === 200).length;
    try {
      for (let k = 0; k < KILLS.download; k++) {
        const d = await runAndKill('download-driver.ts', { ...env, START: String(acked.size) }, 700);
        killCounts.download = (killCounts.download ?? 0) + 1;
        for (const l of d.lines) if (l.startsWith('got ')) acked.add(Number(l.slice(4)));
        expect(integrity(dbFile), `kill ${k}`).toBe('ok');
        // A file under its final name is complete (written as .part, fsynced, renamed).
        for (const name of readdirSync(out).filter((n) => n.endsWith('.bin'))) expect(shaFile(join(out, name)), `kill ${k}: ${name}`).toBe(bigSha);
        for (const i of acked) expect(existsSync(join(out, `big-${i}.bin`)), `kill ${k}: acked download ${i} lost`).toBe(true);
        expect(dbQuery(dbFile, (db) => db.prepare("SELECT COUNT(*) FROM jobs WHERE kind = 'task'").pluck().get()), `kill ${k}: jobs lost`).toBe(M);
        expect(creates(), `kill ${k}: a task was created twice`).toBe(sim.tasks().length);
        expect(sim.tasks().length).toBeLessThanOrEqual(M);
      }
      // Restart to completion: the queue, and any download a kill interrupted (resumed from .part).
      for (const part of readdirSync(out).filter((n) => n.endsWith('.part'))) {
        const dest = join(out, part.slice(0, -'.part'.length));
        await client.download(`${sim.url}/files/big.bin`, dest);
        expect(shaFile(dest)).toBe(bigSha);
      }
      expect(readdirSync(out).filter((n) => n.endsWith('.part'))).toEqual([]);
      const ctx2 = openLibrary(dataDir);
      const q = new JobQueue({ db: ctx2.db, client, handlers: builtinHandlers, tuning: { pollMs: 40, pollMaxMs: 100 } });
      q.start();
      await q.waitForIdle();
      const jobs = q.listJobs({ limit: 100 });
      expect(jobs).toHaveLength(M);
      const states: Record<string, number> = {};
      for (const j of jobs) {
        states[j.state] = (states[j.state] ?? 0) + 1;
        expect(['done', 'unknown'], `job ${j.id}: ${j.error?.message}`).toContain(j.state);
        if (j.state !== 'done') continue;
        const r = j.result as { file: string; resultUrl: string };
        const served = sim.files.get(decodeURIComponent(basename(new URL(r.resultUrl).pathname)))!;
        expect(shaFile(r.file)).toBe(sha(served.data));
      }
      expect(readdirSync(results).filter((n) => n.endsWith('.part'))).toEqual([]);
      expect(creates()).toBe(sim.tasks().length);
      expect(sim.tasks().length).toBeLessThanOrEqual(M);
      expect(new Set(jobs.filter((j) => j.taskId).map((j) => j.taskId)).size).toBe(jobs.filter((j) => j.taskId).length);
      await q.stop();
      ctx2.db.close();
      console.log(`download: ${KILLS.download} kills, ${acked.size} acked downloads of 24 MB, tasks ${JSON.stringify(states)}, ${sim.tasks().length} created for ${M} jobs`);
    } finally {
      await client.close();
      await sim.close();
    }
  }, 600_000);
});
