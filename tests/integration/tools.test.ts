import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { scanFolder } from '../../src-main/library/scan';
import { resetToolCache, searchDirs, setToolPaths, unpackedPath } from '../../src-main/core/tools';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { getAssetKeywords } from '../../src-main/library/keywords';
import { tagsmithSync } from '../helpers/cli';

// The tools that travel with the app (ffmpeg, ffprobe from their per-platform npm packages),
// found through core/tools.ts: `tagsmith doctor` run as a real child process with PATH and the
// TAGSMITH_FFMPEG / TAGSMITH_FFPROBE overrides manipulated, and a scan that meets a missing
// ffprobe, says so, and reads the video once ffprobe is back.

let root: string;
/** A PATH holding only node and perl. */
let bareBin: string;

interface ToolRow { name: string; ok: boolean; version: string | null; path: string | null; source: string | null; impact: string }
interface Report { tools: ToolRow[]; library: { path: string; sizeBytes: number; assets: number; integrity: string }; service: { url: string; credentials: string } }

function doctor(env: NodeJS.ProcessEnv): { code: number | null; report: Report; stderr: string } {
  // Only what the test sets: not the tools or the service account of the machine running it.
  const clean = { TAGSMITH_FFMPEG: undefined, TAGSMITH_FFPROBE: undefined, TAGSMITH_CLIENT_ID: undefined, TAGSMITH_CLIENT_SECRET: undefined };
  const r = tagsmithSync(join(root, 'lib'), ['doctor', '--json'], { timeout: 120_000, env: { ...clean, ...env } });
  return { code: r.code, report: r.json<Report>(), stderr: r.stderr };
}

const tool = (r: Report, name: string): ToolRow => r.tools.find((t) => t.name === name)!;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tagsmith-tools-'));
  bareBin = join(root, 'bin');
  mkdirSync(bareBin);
  symlinkSync(process.execPath, join(bareBin, 'node'));
  symlinkSync(execFileSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).trim(), join(bareBin, 'perl'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('tagsmith doctor', () => {
  it('finds ffmpeg and ffprobe shipped with the app when PATH holds only node and perl', () => {
    const { code, report } = doctor({ PATH: bareBin });
    expect(code).toBe(0);
    expect(Object.keys(report).sort()).toEqual(['library', 'service', 'tools']);
    expect(report.tools.map((t) => t.name)).toEqual(['ffmpeg', 'ffprobe', 'exiftool', 'perl']);
    for (const t of report.tools) {
      expect(Object.keys(t)).toEqual(['name', 'ok', 'version', 'path', 'source', 'impact']);
      expect(t.ok, `${t.name} should be usable`).toBe(true);
      expect(t.version).toBeTruthy();
    }
    expect(tool(report, 'ffmpeg').source).toBe('bundled');
    expect(tool(report, 'ffmpeg').path).toContain(join('@ffmpeg-installer', `${process.platform}-${process.arch}`));
    expect(tool(report, 'ffprobe').source).toBe('bundled');
    expect(tool(report, 'ffprobe').path).toContain(join('@ffprobe-installer', `${process.platform}-${process.arch}`));
    // The version string is what the binary itself prints.
    const printed = execFileSync(tool(report, 'ffprobe').path!, ['-version'], { encoding: 'utf8' }).split('\n')[0];
    expect(printed).toContain(`version ${tool(report, 'ffprobe').version}`);
    expect(tool(report, 'perl').path).toBe(join(bareBin, 'perl'));
    expect(report.library).toMatchObject({ path: join(root, 'lib'), assets: 0, integrity: 'ok' });
    expect(report.library.sizeBytes).toBeGreaterThan(0);
    expect(report.service.credentials).toBe('none');
  });

  it('reports a tool missing when the override points nowhere, with what stops working', () => {
    const { code, report } = doctor({ PATH: bareBin, TAGSMITH_FFPROBE: join(root, 'nowhere', 'ffprobe') });
    expect(code).toBe(0);
    const probe = tool(report, 'ffprobe');
    expect(probe).toMatchObject({ ok: false, version: null, source: 'env', path: join(root, 'nowhere', 'ffprobe') });
    expect(probe.impact).toMatch(/Videos/);
    expect(tool(report, 'ffmpeg').ok).toBe(true);
  });

  it('looks a bare override name up on PATH: missing without it, found with it', () => {
    const missing = doctor({ PATH: bareBin, TAGSMITH_FFMPEG: 'ffmpeg' });
    expect(tool(missing.report, 'ffmpeg')).toMatchObject({ ok: false, source: 'env' });
    const systemDir = execFileSync('sh', ['-c', 'dirname "$(command -v ffmpeg)"'], { encoding: 'utf8' }).trim();
    const found = doctor({ PATH: `${bareBin}:${systemDir}`, TAGSMITH_FFMPEG: 'ffmpeg' });
    expect(tool(found.report, 'ffmpeg')).toMatchObject({ ok: true, source: 'env', path: join(systemDir, 'ffmpeg') });
  });

  it('prints a readable report without --json', () => {
    const r = tagsmithSync(join(root, 'lib'), ['doctor'], { timeout: 120_000, env: { PATH: bareBin, TAGSMITH_FFPROBE: join(root, 'nowhere', 'ffprobe') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/MISSING\s+ffprobe/);
    expect(r.stdout).toMatch(/ok\s+ffmpeg/);
  });
});

describe('a scan without ffprobe', () => {
  let ctx: LibraryCtx;
  let folder: string;
  const saved = process.env.TAGSMITH_FFPROBE;

  beforeAll(() => {
    folder = join(root, 'videos');
    mkdirSync(folder);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=15', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', join(folder, 'clip.mp4')]);
    ctx = openLibrary(join(root, 'scanlib'));
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.TAGSMITH_FFPROBE;
    else process.env.TAGSMITH_FFPROBE = saved;
    resetToolCache();
    ctx.db.close();
    await closeMetadataReader();
  });

  it('records that ffprobe is missing (not a damaged file), and a rescan reads the video once it is back', async () => {
    process.env.TAGSMITH_FFPROBE = join(root, 'nowhere', 'ffprobe');
    resetToolCache();
    const folderId = addFolder(ctx, folder).id;
    const first = await scanFolder(ctx, folderId);
    expect(first.added).toBe(1);
    expect(first.errors.map((e) => e.reason)).toEqual(['Videos cannot be read: ffprobe is not available — see Settings › System.']);
    expect(first.errors[0].reason).not.toMatch(/damaged/);
    const before = ctx.db.prepare('SELECT id, duration_s, width, thumb FROM assets').get() as { id: number; duration_s: number | null; width: number | null; thumb: string | null };
    expect(before).toMatchObject({ duration_s: null, width: null, thumb: null });

    delete process.env.TAGSMITH_FFPROBE;
    resetToolCache();
    // The file did not change (same size and mtime), yet it is read again.
    const second = await scanFolder(ctx, folderId);
    expect(second.errors).toEqual([]);
    expect(second.updated).toBe(1);
    const after = ctx.db.prepare('SELECT id, duration_s, width, height, thumb, has_error FROM assets').get() as { id: number; duration_s: number; width: number; height: number; thumb: string | null; has_error: number };
    expect(after.id).toBe(before.id);
    expect(after.duration_s).toBeCloseTo(2, 0);
    expect([after.width, after.height]).toEqual([320, 240]);
    expect(after.thumb).not.toBeNull();
    expect(after.has_error).toBe(0);
    expect(ctx.db.prepare('SELECT count(*) AS n FROM scan_errors').get()).toEqual({ n: 0 });

    // Read once: a third scan skips the unchanged, now readable file.
    const third = await scanFolder(ctx, folderId);
    expect(third.updated).toBe(0);
  });
});

describe('a RAW file when perl is reported missing', () => {
  it('says RAW previews need perl (not "no embedded preview"), and the next scan reads it again', async () => {
    const folder = join(root, 'raws');
    mkdirSync(folder);
    // Not a real RAW: no preview inside, and libvips cannot read it either.
    writeFileSync(join(folder, 'IMG_0001.CR3'), Buffer.concat([Buffer.from('ftypcrx '), randomBytes(4000)]));
    const ctx = openLibrary(join(root, 'rawlib'));
    try {
      const folderId = addFolder(ctx, folder).id;
      setToolPaths({ perl: join(root, 'nowhere', 'perl') });
      const first = await scanFolder(ctx, folderId);
      expect(first.errors.map((e) => e.reason)).toContain('RAW previews cannot be read: perl is not available — see Settings › System.');
      expect(first.errors.some((e) => /no embedded preview/.test(e.reason))).toBe(false);
      expect(ctx.db.prepare("SELECT count(*) AS n FROM scan_errors WHERE stage = 'tool'").get()).toEqual({ n: 1 });

      setToolPaths({ perl: null });
      const second = await scanFolder(ctx, folderId);
      expect(second.updated).toBe(1);
      // With perl there, this file is what it is: a RAW without a preview.
      expect(second.errors.map((e) => e.reason)).toContain('This RAW file has no embedded preview, so no thumbnail could be made.');
      expect(ctx.db.prepare("SELECT count(*) AS n FROM scan_errors WHERE stage = 'tool'").get()).toEqual({ n: 0 });
    } finally {
      setToolPaths({ perl: null });
      ctx.db.close();
      await closeMetadataReader();
    }
  });
});

describe('an XMP sidecar when perl is reported missing', () => {
  it('names perl as missing in the file\'s status (never drops the sidecar silently), and the next scan reads the sidecar once perl is back', async () => {
    const folder = join(root, 'sidecars');
    mkdirSync(folder);
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3060c0' } }).jpeg().toFile(join(folder, 'IMG_0002.jpg'));
    writeFileSync(join(folder, 'IMG_0002.jpg.xmp'), `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag><rdf:li>lighthouse</rdf:li></rdf:Bag></dc:subject></rdf:Description>
</rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`);
    const ctx = openLibrary(join(root, 'sidecarlib'));
    try {
      const folderId = addFolder(ctx, folder).id;
      setToolPaths({ perl: join(root, 'nowhere', 'perl') });
      const first = await scanFolder(ctx, folderId);
      expect(first.errors.map((e) => e.reason)).toContain('The XMP sidecar IMG_0002.jpg.xmp cannot be read: perl is not available — see Settings › System.');
      const id = (ctx.db.prepare('SELECT id FROM assets').get() as { id: number }).id;
      expect(getAssetKeywords(ctx.db, id)).toEqual([]);
      expect(ctx.db.prepare("SELECT count(*) AS n FROM scan_errors WHERE stage = 'tool'").get()).toEqual({ n: 1 });

      // perl back, nothing changed on disk: the file is read again, its sidecar with it.
      setToolPaths({ perl: null });
      const second = await scanFolder(ctx, folderId);
      expect(second.updated).toBe(1);
      expect(second.errors).toEqual([]);
      expect(getAssetKeywords(ctx.db, id)).toEqual(['lighthouse']);
      expect(ctx.db.prepare('SELECT count(*) AS n FROM scan_errors').get()).toEqual({ n: 0 });
    } finally {
      setToolPaths({ perl: null });
      ctx.db.close();
      await closeMetadataReader();
    }
  });

  it('says a sidecar it cannot parse is unread, and keeps the file\'s own fields', async () => {
    const folder = join(root, 'bad-sidecar');
    mkdirSync(folder);
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03060' } }).jpeg().toFile(join(folder, 'IMG_0003.jpg'));
    writeFileSync(join(folder, 'IMG_0003.jpg.xmp'), randomBytes(2000));
    const ctx = openLibrary(join(root, 'badsidecarlib'));
    try {
      const scan = await scanFolder(ctx, addFolder(ctx, folder).id);
      expect(scan.added).toBe(1);
      expect(scan.errors.map((e) => e.reason)).toContain('The XMP sidecar IMG_0003.jpg.xmp could not be read, so its keywords, caption and rating are not in the catalogue. It may be damaged.');
      expect(ctx.db.prepare('SELECT width, height FROM assets').get()).toEqual({ width: 64, height: 48 });
    } finally {
      ctx.db.close();
      await closeMetadataReader();
    }
  });
});

describe('tool paths', () => {
  it('runs binaries from app.asar.unpacked in a packaged app', () => {
    expect(unpackedPath('/opt/Tagsmith/resources/app.asar/node_modules/@ffmpeg-installer/linux-x64/ffmpeg'))
      .toBe('/opt/Tagsmith/resources/app.asar.unpacked/node_modules/@ffmpeg-installer/linux-x64/ffmpeg');
    expect(unpackedPath('/work/node_modules/x/ffmpeg')).toBe('/work/node_modules/x/ffmpeg');
  });

  it('adds Homebrew and MacPorts to the search on macOS (Finder starts apps with a bare PATH)', () => {
    expect(searchDirs({ PATH: '/usr/bin:/bin' }, 'darwin')).toEqual(['/usr/bin', '/bin', '/opt/homebrew/bin', '/usr/local/bin', '/opt/local/bin']);
    expect(searchDirs({ PATH: '/usr/bin:/bin' }, 'linux')).toEqual(['/usr/bin', '/bin']);
  });
});
