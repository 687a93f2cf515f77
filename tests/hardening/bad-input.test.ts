// Bad input corpus, generated here: truncated and empty files, a PNG claiming 50,000 x 50,000
// pixels, wrong extensions, a 3-hour video and a 150 MB one (both tiny on disk), 200 levels of
// folders, symlink loops, unreadable files and folders, names in several scripts (NFC and NFD)
// and names that are not UTF-8. Each problem gets a plain recorded reason, the scan goes on,
// nothing crashes; the analysis side refuses what it cannot send before sending it.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanSummary } from '../../src-preload/contract';
import { JobQueue, builtinHandlers } from '../../src-main/jobs';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { ServiceClient } from '../../src-main/service/client';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { ROOT } from './helpers';

const run = promisify(execFile);
const base = mkdtempSync(join(tmpdir(), 'tagsmith-bad-'));
const root = join(base, 'corpus');
const MB = 1024 * 1024;
let ctx: LibraryCtx;
let summary: ScanSummary;
let scanMs = 0;

const NAMES = {
  cyrillic: 'Москва зимой.jpg',
  arabic: 'صورة العائلة.jpg',
  cjk: '東京の夜景.jpg',
  emoji: '🌅 sunset 🏖️.jpg',
  nfc: 'caf\u00e9.jpg',
  nfd: 'cafe\u0301.jpg',
  mixed: 'Ελλάδα – हिन्दी – עברית.jpg',
};
const DEEP = 200;
const deepRel = Array.from({ length: DEEP }, (_, i) => `d${i}`).join('/') + '/bottom.jpg';

/** A PNG whose header claims width x height; the pixel data is a few bytes. */
function pngClaiming(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer): number => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1 + width * 3 * 2))), // two rows of 50,000 pixels: 300 KB of zeros, deflated to ~300 bytes
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const photo = (w = 120, h = 80, bg = '#4a7') => sharp({ create: { width: w, height: h, channels: 3, background: bg } });

async function video(path: string, seconds: number, extra: string[] = []): Promise<void> {
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=blue:s=32x32:r=1`, '-t', String(seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-movflags', '+faststart', ...extra, path]);
}

/** A valid MP4 made 150 MB by a trailing `free` box; the file is sparse, so it costs almost no disk. */
async function bigVideo(path: string): Promise<void> {
  await video(path, 10);
  const size = statSync(path).size;
  const target = 150 * MB;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(target - size, 0);
  header.write('free', 4, 'ascii');
  const fd = openSync(path, 'r+');
  writeSync(fd, header, 0, 8, size);
  closeSync(fd);
  truncateSync(path, target);
}

beforeAll(async () => {
  mkdirSync(root);
  const ok = await photo().jpeg().toBuffer();
  writeFileSync(join(root, 'good.jpg'), ok);
  writeFileSync(join(root, 'truncated.jpg'), (await photo(800, 600, '#a52').jpeg().toBuffer()).subarray(0, 2500));
  writeFileSync(join(root, 'zero.jpg'), '');
  writeFileSync(join(root, 'zero.mp4'), '');
  writeFileSync(join(root, 'bomb.png'), pngClaiming(50_000, 50_000));
  writeFileSync(join(root, 'png-named.jpg'), await photo(90, 60, '#36c').png().toBuffer());
  writeFileSync(join(root, 'text-named.jpg'), 'This is not a picture.\n'.repeat(20));
  writeFileSync(join(root, 'jpeg-named.mp4'), ok);
  writeFileSync(join(root, 'garbage.mov'), Buffer.alloc(5000, 7));
  await video(join(root, 'three-hours.mp4'), 3 * 3600);
  await bigVideo(join(root, 'huge-150mb.mp4'));
  // 200 levels of folders with a photo at the bottom.
  mkdirSync(join(root, deepRel, '..'), { recursive: true });
  writeFileSync(join(root, deepRel), ok);
  // Symlink loops: to a parent, to itself, two links pointing at each other, and a way out that leads back in.
  mkdirSync(join(root, 'loops'));
  symlinkSync('..', join(root, 'loops', 'up'));
  symlinkSync('self', join(root, 'loops', 'self'));
  symlinkSync('b.jpg', join(root, 'loops', 'a.jpg'));
  symlinkSync('a.jpg', join(root, 'loops', 'b.jpg'));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'outside.jpg'), ok);
  symlinkSync(root, join(base, 'outside', 'back-in'));
  symlinkSync(join(base, 'outside'), join(root, 'loops', 'out'));
  // Names in several scripts; café in NFC and in NFD are two different files on Linux.
  mkdirSync(join(root, 'names'));
  for (const [i, name] of Object.values(NAMES).entries()) writeFileSync(join(root, 'names', name), await photo(100 + i, 70).jpeg().toBuffer());
  // Names that are not UTF-8 (Latin-1 bytes), a file and a folder.
  const latin1 = (s: string) => Buffer.from(s, 'latin1');
  writeFileSync(Buffer.concat([Buffer.from(join(root, 'names') + '/'), latin1('M\u00fcnchen.jpg')]), ok);
  mkdirSync(Buffer.concat([Buffer.from(root + '/'), latin1('Stra\u00dfe')]));
  writeFileSync(Buffer.concat([Buffer.from(root + '/'), latin1('Stra\u00dfe'), Buffer.from('/inside.jpg')]), ok);

  ctx = openLibrary(join(base, 'data'));
  const folder = addFolder(ctx, root);
  const t = Date.now();
  summary = await scanFolder(ctx, folder.id);
  scanMs = Date.now() - t;
});

afterAll(async () => {
  ctx.db.close();
  await closeMetadataReader();
  rmSync(base, { recursive: true, force: true });
});

const row = (rel: string) => ctx.db.prepare('SELECT * FROM assets WHERE rel_path = ?').get(rel) as
  { id: number; thumb: string | null; has_error: number; width: number | null; height: number | null; duration_s: number | null; size: number; kind: string } | undefined;
const reasonsFor = (pathEnd: string): string[] => [
  ...summary.errors.filter((e) => e.path.endsWith(pathEnd)).map((e) => e.reason),
];
const recorded = (pathEnd: string): string[] =>
  (ctx.db.prepare('SELECT path, reason FROM scan_errors').all() as { path: string; reason: string }[]).filter((e) => e.path.endsWith(pathEnd)).map((e) => e.reason);

describe('a scan of the bad-input corpus', () => {
  it('finishes, indexes every good file and records each problem once with a plain reason', () => {
    expect(summary.cancelled).toBe(false);
    console.log(`bad input: scanned in ${scanMs} ms, ${summary.added} added, reasons:\n${summary.errors.map((e) => `  ${e.path.slice(root.length + 1)}: ${e.reason}`).join('\n')}`);
    // That it finished at all (no hang on the bomb, the loop or the 3-hour video) is the claim;
    // how fast is the bench's business: this suite's hook timeout bounds it.
    for (const e of summary.errors) {
      expect(e.reason, e.path).toMatch(/^[A-Z].{15,}\.$/);
      expect(e.reason, e.path).not.toMatch(/Error:|errno|ENOENT|EACCES|SqliteError|at .*:\d+|vips|sharp/i);
    }
    expect(row('good.jpg')?.thumb).toBeTruthy();
    expect(row(deepRel)?.thumb).toBeTruthy();
    // Every recorded problem is also in the catalogue, where the user sees it.
    for (const e of summary.errors) expect(recorded(e.path.slice(-20)).length, e.path).toBeGreaterThan(0);
  });

  it('empty and truncated files', () => {
    expect(reasonsFor('/zero.jpg')).toEqual(['The file is empty (0 bytes).']);
    expect(reasonsFor('/zero.mp4')).toEqual(['The file is empty (0 bytes).']);
    expect(row('zero.jpg')!.has_error).toBe(1);
    expect(reasonsFor('/truncated.jpg').join(' ')).toMatch(/incomplete or damaged|damaged/);
  });

  it('a PNG claiming 50,000 x 50,000 pixels is refused with its size, never decoded', () => {
    expect(reasonsFor('/bomb.png')).toEqual(['The image is too large to decode safely (50000 x 50000 px).']);
    expect(row('bomb.png')).toMatchObject({ thumb: null, width: 50_000, height: 50_000 });
  });

  it('wrong extensions: a PNG named .jpg is just a picture; text named .jpg, a JPEG named .mp4, garbage .mov get reasons', () => {
    expect(reasonsFor('/png-named.jpg')).toEqual([]);
    expect(row('png-named.jpg')).toMatchObject({ width: 90, height: 60, has_error: 0 });
    expect(row('png-named.jpg')!.thumb).toBeTruthy();
    expect(reasonsFor('/text-named.jpg').join(' ')).toMatch(/could not be read as a JPEG image|could not be read/);
    expect(row('text-named.jpg')!.thumb).toBeNull();
    expect(reasonsFor('/garbage.mov')).toEqual(['This video could not be read. It may be damaged or use a format this system cannot play.']);
    // ffprobe reads a JPEG as a one-frame mjpeg "video": catalogued, with a poster, no crash.
    const j = row('jpeg-named.mp4')!;
    expect(j.kind).toBe('video');
    expect(j).toMatchObject({ has_error: 0, width: 120, height: 80 });
    expect(j.thumb).toBeTruthy();
  });

  it('a 3-hour video and a 150 MB video are catalogued with their real duration and size', () => {
    expect(row('three-hours.mp4')!.duration_s).toBeCloseTo(10_800, 0);
    expect(row('three-hours.mp4')!.thumb).toBeTruthy();
    expect(row('huge-150mb.mp4')!.size).toBe(150 * MB);
    expect(row('huge-150mb.mp4')!.duration_s).toBeCloseTo(10, 0);
    expect(reasonsFor('three-hours.mp4')).toEqual([]);
    expect(reasonsFor('huge-150mb.mp4')).toEqual([]);
  });

  it('symlink loops are not followed twice; a way out is followed once; nothing is indexed twice', () => {
    const rels = ctx.db.prepare('SELECT rel_path FROM assets').pluck().all() as string[];
    expect(rels.filter((r) => r.startsWith('loops/up/') || r.startsWith('loops/self'))).toEqual([]);
    expect(rels).not.toContain('loops/a.jpg');
    expect(rels).toContain('loops/out/outside.jpg');
    expect(rels.filter((r) => r.includes('back-in'))).toEqual([]);
    expect(rels.filter((r) => r.endsWith('good.jpg'))).toEqual(['good.jpg']);
  });

  it('names in Cyrillic, Arabic, CJK, emoji and mixed scripts index exactly as named; NFC and NFD stay two files', () => {
    for (const name of Object.values(NAMES)) {
      const r = row(`names/${name}`);
      expect(r, name).toBeDefined();
      expect(r!.thumb, name).toBeTruthy();
      expect(r!.has_error, name).toBe(0);
    }
    expect(row(`names/${NAMES.nfc}`)!.id).not.toBe(row(`names/${NAMES.nfd}`)!.id);
    // Search finds the Cyrillic name by a word of it.
    const hits = ctx.db.prepare("SELECT rel_path FROM assets WHERE name LIKE '%Москва%'").pluck().all();
    expect(hits).toEqual([`names/${NAMES.cyrillic}`]);
  });

  it('names that are not UTF-8 (a file and a folder) are skipped with a reason saying to rename them', () => {
    const bad = summary.errors.filter((e) => /not valid text/.test(e.reason));
    expect(bad).toHaveLength(2);
    for (const e of bad) expect(e.reason).toMatch(/Rename it/);
    expect(bad.map((e) => e.path).join('\n')).toMatch(/\uFFFD/);
  });

  it('a rescan of the same corpus is clean: same errors, nothing added or removed', async () => {
    const again = await scanFolder(ctx, (ctx.db.prepare('SELECT id FROM folders').pluck().get() as number));
    expect(again).toMatchObject({ added: 0, removed: 0, moved: 0, cancelled: false });
    const folderErrors = (s: ScanSummary) => s.errors.filter((e) => /not valid text|not allowed|could not be read, so/.test(e.reason)).length;
    expect(folderErrors(again)).toBe(folderErrors(summary));
  });
});

describe('unreadable files and folders', () => {
  // As root chmod 000 does not stop reads, so the scan runs as 'nobody' (setpriv), where it does.
  const isRoot = process.getuid?.() === 0;
  const canDrop = isRoot && (() => { try { return statSync('/usr/bin/setpriv').isFile(); } catch { return false; } })();

  it(isRoot && !canDrop ? 'skipped: running as root without setpriv, chmod 000 cannot be tested' : 'are recorded with a permissions reason and the rest is indexed', async () => {
    if (isRoot && !canDrop) return;
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-perm-'));
    try {
      const tree = join(dir, 'tree');
      mkdirSync(join(tree, 'locked-folder'), { recursive: true });
      const ok = await photo().jpeg().toBuffer();
      writeFileSync(join(tree, 'readable.jpg'), ok);
      writeFileSync(join(tree, 'locked.jpg'), ok);
      writeFileSync(join(tree, 'locked-folder', 'inside.jpg'), ok);
      chmodSync(join(tree, 'locked.jpg'), 0o000);
      chmodSync(join(tree, 'locked-folder'), 0o000);
      chmodSync(dir, 0o777);
      mkdirSync(join(dir, 'data'), { mode: 0o777 });
      chmodSync(join(dir, 'data'), 0o777);
      const cmd = canDrop ? '/usr/bin/setpriv' : process.execPath;
      const args = [...(canDrop ? ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath] : []), '--import', 'tsx', 'tests/hardening/fixtures/scan-as-user.ts'];
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, HOME: dir, DATA_DIR: join(dir, 'data'), ROOT: tree, TAGSMITH_QUIET: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
        let o = '';
        let e = '';
        child.stdout.on('data', (d: Buffer) => { o += d.toString(); });
        child.stderr.on('data', (d: Buffer) => { e += d.toString(); });
        child.on('exit', (code) => (code === 0 ? resolve(o) : reject(new Error(`scan as nobody exited ${code}: ${e}`))));
      });
      const r = JSON.parse(out.trim().split('\n').pop()!) as { summary: ScanSummary; errors: { path: string; stage: string; reason: string }[]; assets: string[] };
      expect(r.assets).toContain('readable.jpg');
      expect(r.assets).not.toContain('locked-folder/inside.jpg');
      const reason = (end: string) => r.errors.filter((e) => e.path.endsWith(end)).map((e) => e.reason).join(' ');
      expect(reason('/locked-folder')).toMatch(/not allowed to open this folder/);
      expect(reason('/locked.jpg')).toMatch(/not allowed to read this file|could not be read\. Check its permissions/);
      expect(r.summary.cancelled).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the analysis side refuses what it cannot send, before sending', () => {
  const creds = { clientId: 'bad', clientSecret: 'bad-secret' };
  let sim: Simulator;
  let q: JobQueue;
  let client: ServiceClient;
  let qctx: LibraryCtx;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, accounts: [creds] });
    client = new ServiceClient({ baseUrl: sim.url, credentials: creds });
    qctx = openLibrary(join(base, 'queue-data'));
    q = new JobQueue({ db: qctx.db, client, handlers: builtinHandlers });
    q.start();
  });

  afterAll(async () => {
    await q.stop();
    qctx.db.close();
    await client.close();
    await sim.close();
  });

  it('a 150 MB video: refused with its size and the limit; the service never sees a request', async () => {
    const job = q.enqueue({ kind: 'analyze', payload: { file: join(root, 'huge-150mb.mp4'), endpoint: 'videoKeywords' } });
    await q.waitForIdle();
    const j = q.getJob(job.id)!;
    expect(j.state).toBe('failed');
    expect(j.error!.message).toMatch(/The video is 150 MB; the service accepts at most 100 MB/);
    expect(sim.log.filter((e) => e.path === '/v1/video_keywords')).toEqual([]);
  });

  it('a 3-hour video: sent without its metadata, with a warning about its length', async () => {
    const job = q.enqueue({ kind: 'analyze', payload: { file: join(root, 'three-hours.mp4'), endpoint: 'videoKeywords' } });
    await q.waitForIdle();
    const j = q.getJob(job.id)!;
    expect(j.state, j.error?.message).toBe('done');
    expect((j.result as { warnings?: string[] }).warnings?.join(' ')).toMatch(/10800 s long; the service recommends 5 to 60 s \(beyond 60 s/);
  });

  it('the 50,000 x 50,000 PNG, a truncated JPEG and a text file named .jpg never reach the service as garbage', async () => {
    const before = sim.log.length;
    const jobs = ['bomb.png', 'text-named.jpg', 'zero.jpg'].map((f) => q.enqueue({ kind: 'analyze', payload: { file: join(root, f), endpoint: 'keywords' } }));
    await q.waitForIdle();
    for (const job of jobs) {
      const j = q.getJob(job.id)!;
      expect(j.state).toBe('failed');
      expect(j.error!.message).toMatch(/picture could not be|no readable size/);
    }
    expect(sim.log.length).toBe(before);
    // The truncated JPEG still has a readable part: that part is what is sent.
    const t = q.enqueue({ kind: 'analyze', payload: { file: join(root, 'truncated.jpg'), endpoint: 'keywords' } });
    await q.waitForIdle();
    expect(['done', 'failed']).toContain(q.getJob(t.id)!.state);
    expect(readFileSync(join(root, 'truncated.jpg')).length).toBe(2500);
  });
});
