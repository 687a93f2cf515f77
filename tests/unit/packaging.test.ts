import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { bundledPath } from '../../src-main/core/tools';

// The packaging configuration, checked as far as it can be without the Electron binary (which
// cannot be downloaded here, so no installer is built by the tests): electron-builder loads and
// validates it against its own schema; the targets are the ones the app ships; every native
// module and tool binary of this machine's install falls under asarUnpack; the Electron-ABI
// SQLite build lands where main looks for it; the icons exist at the sizes each format needs.

const ROOT = join(__dirname, '..', '..');
const require = createRequire(import.meta.url);

interface Target { target: string; arch?: string[] }
interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  extraResources: { from: string; to: string; filter: string[] }[];
  npmRebuild: boolean;
  linux: { target: string[]; icon: string; maintainer: string; desktop: { entry: Record<string, string> } };
  deb: { depends: string[] };
  mac: { target: Target[]; icon: string };
  win: { target: Target[]; icon: string };
}

async function loadConfig(): Promise<BuilderConfig> {
  // electron-builder's own loader (it finds electron-builder.json) and schema validation.
  const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
    getConfig(dir: string, path: null, fromOptions: null): Promise<BuilderConfig>;
    validateConfiguration(c: BuilderConfig, log: { isEnabled: boolean; add(k: string, v: unknown): void }): Promise<void>;
  };
  const config = await getConfig(ROOT, null, null);
  await validateConfiguration(config, { isEnabled: false, add: () => undefined });
  return config;
}

/** Files under a directory, as paths relative to the project (forward slashes, as asar globs use). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(ROOT, p).split(sep).join('/'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const unpacked = (config: BuilderConfig, file: string): boolean => config.asarUnpack.some((g) => minimatch(file, g, { dot: true }));

describe('electron-builder configuration', () => {
  it('loads and passes electron-builder’s schema', async () => {
    const config = await loadConfig();
    expect(config.appId).toBe('app.tagsmith.desktop');
    expect(config.productName).toBe('Tagsmith');
    // A deb's Maintainer is "Name <address>"; no placeholder without an address.
    expect(config.linux.maintainer).toMatch(/^[^<>]+ <[^@\s<>]+@[^@\s<>]+>$/);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.dist).toContain('electron-builder');
  });

  it('builds AppImage and deb, dmg for x64 and arm64, and NSIS', async () => {
    const config = await loadConfig();
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual([{ target: 'dmg', arch: ['x64', 'arm64'] }]);
    expect(config.win.target.map((t) => t.target)).toEqual(['nsis']);
    // exiftool is a Perl script on Linux: the deb brings perl along.
    expect(config.deb.depends).toContain('perl');
  });

  it('unpacks every native module and tool binary of this install from the asar', async () => {
    const config = await loadConfig();
    expect(config.asar).toBe(true);
    const natives = ['node_modules/@img', 'node_modules/@napi-rs', 'node_modules/sharp']
      .flatMap((d) => filesUnder(join(ROOT, d)))
      .filter((f) => f.endsWith('.node') || /libvips/.test(f));
    expect(natives.length).toBeGreaterThan(1);
    for (const f of natives) expect(unpacked(config, f), f).toBe(true);
    for (const tool of ['ffmpeg', 'ffprobe'] as const) {
      const p = bundledPath(tool);
      expect(p, `${tool} binary for ${process.platform}-${process.arch}`).not.toBeNull();
      expect(unpacked(config, relative(ROOT, p!).split(sep).join('/')), tool).toBe(true);
    }
    expect(unpacked(config, 'node_modules/exiftool-vendored.pl/bin/exiftool')).toBe(true);
    // The app's own code stays packed.
    expect(unpacked(config, 'out/main/index.js')).toBe(false);
  });

  it('ships the Electron-ABI SQLite build where main looks for it, and never the Node one in its place', async () => {
    const config = await loadConfig();
    // main: join(process.resourcesPath, 'native', 'better_sqlite3.node').
    expect(config.extraResources).toEqual([{ from: 'native/electron', to: 'native', filter: ['better_sqlite3.node'] }]);
    expect(readFileSync(join(ROOT, 'src-main', 'index.ts'), 'utf8')).toContain("join(process.resourcesPath ?? '', 'native', 'better_sqlite3.node')");
    // electron-builder's own rebuild would rebuild node_modules in place (the Node build the
    // tests and CLI need): the packaging step builds a copy with @electron/rebuild instead.
    expect(config.npmRebuild).toBe(false);
    const script = readFileSync(join(ROOT, 'scripts', 'build-electron-sqlite.sh'), 'utf8');
    expect(script).toContain('electron-rebuild');
    expect(statSync(join(ROOT, 'scripts', 'build-electron-sqlite.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(join(ROOT, 'node_modules', '.bin', 'electron-rebuild'))).toBe(true);
  });

  it('has the desktop entry a Linux desktop needs, with folders as what it opens', async () => {
    const { linux } = await loadConfig();
    expect(linux.desktop.entry).toMatchObject({ Name: 'Tagsmith', Categories: 'Graphics;Photography;', MimeType: 'inode/directory;' });
    expect(linux.icon).toBe('resources/icons');
  });

  it('the electron-builder command runs on this Node', () => {
    const r = spawnSync(process.execPath, [require.resolve('electron-builder/cli.js'), '--help'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('--linux');
  });
});

describe('icons', () => {
  it('resources/icon.png is 1024×1024 and made from the SVG source', async () => {
    expect(existsSync(join(ROOT, 'resources', 'icon.svg'))).toBe(true);
    const meta = await sharp(join(ROOT, 'resources', 'icon.png')).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([1024, 1024, 'png']);
  });

  it('the Linux set has each size its name says', async () => {
    for (const s of [16, 24, 32, 48, 64, 128, 256, 512, 1024]) {
      const meta = await sharp(join(ROOT, 'resources', 'icons', `${s}x${s}.png`)).metadata();
      expect([meta.width, meta.height], `${s}x${s}`).toEqual([s, s]);
    }
  });

  it('icon.ico and icon.icns hold PNGs of the sizes Windows and macOS use', async () => {
    const ico = readFileSync(join(ROOT, 'resources', 'icon.ico'));
    expect(ico.readUInt16LE(2)).toBe(1);
    const count = ico.readUInt16LE(4);
    const icoSizes: number[] = [];
    for (let i = 0; i < count; i++) {
      const e = 6 + i * 16;
      const data = ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8));
      const meta = await sharp(data).metadata();
      expect(meta.width).toBe(ico.readUInt8(e) || 256);
      icoSizes.push(meta.width!);
    }
    expect(icoSizes).toEqual([16, 24, 32, 48, 64, 128, 256]);

    const icns = readFileSync(join(ROOT, 'resources', 'icon.icns'));
    expect(icns.subarray(0, 4).toString('ascii')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const types: Record<string, number> = {};
    for (let at = 8; at < icns.length; ) {
      const type = icns.subarray(at, at + 4).toString('ascii');
      const len = icns.readUInt32BE(at + 4);
      types[type] = (await sharp(icns.subarray(at + 8, at + len)).metadata()).width!;
      at += len;
    }
    expect(types).toMatchObject({ icp4: 16, icp5: 32, ic07: 128, ic08: 256, ic09: 512, ic10: 1024, ic14: 512 });
  });

  it('the committed icons are what the script makes from the SVG now', () => {
    const out = mkdtempSync(join(tmpdir(), 'tagsmith-icons-'));
    try {
      execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'make-icons.ts'), out], { cwd: ROOT, encoding: 'utf8' });
      const made = filesUnder(out).map((f) => relative(relative(ROOT, out), f));
      expect(made.length).toBe(12);
      for (const f of made) expect(readFileSync(join(out, f)).equals(readFileSync(join(ROOT, 'resources', f))), f).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
