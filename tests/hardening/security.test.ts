// Security: the built main bundle carries the window lock-down (isolation, sandbox, no Node,
// denied windows, blocked navigation, the CSP header) and the built renderer the CSP meta;
// every Api method fed hostile values in every field answers with a readable error, never a
// crash, a leak or a write where the user did not choose; the media protocol and the e2e
// static server refuse what lies outside their roots; and after a realistic run with
// credentials no byte of the secret is anywhere under the data directory.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { API_METHODS } from '../../src-preload/api-methods';
import { createApi } from '../../src-main/api';
import { schemas } from '../../src-main/api/schemas';
import { mediaToken, resolveMediaPath } from '../../src-main/core/media';
import { log, setLogFile } from '../../src-main/core/log';
import { CredentialStore, type KeychainBackend } from '../../src-main/credentials';
import { openLibrary } from '../../src-main/library/context';
import { CONTENT_SECURITY_POLICY } from '../../src-main/window';
import { startServer } from '../e2e/server';
import { startSimulator } from '../simulator/index.js';
import { ROOT, until } from './helpers';

const base = mkdtempSync(join(tmpdir(), 'tagsmith-security-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the built app', () => {
  let main = '';
  let html = '';
  let preload = '';
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'out/main/index.js')) || !existsSync(join(ROOT, 'out/renderer/index.html'))) {
      execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: 'ignore', timeout: 170_000 });
    }
    main = readFileSync(join(ROOT, 'out/main/index.js'), 'utf8');
    html = readFileSync(join(ROOT, 'out/renderer/index.html'), 'utf8');
    preload = readFileSync(join(ROOT, 'out/preload/index.cjs'), 'utf8');
  }, 180_000);

  it('main creates its window isolated, sandboxed, without Node, and no webviews', () => {
    for (const opt of [/contextIsolation:\s*true/, /sandbox:\s*true/, /nodeIntegration:\s*false/, /nodeIntegrationInWorker:\s*false/, /nodeIntegrationInSubFrames:\s*false/, /webSecurity:\s*true/, /webviewTag:\s*false/, /allowRunningInsecureContent:\s*false/]) {
      expect(main).toMatch(opt);
    }
    expect(main).not.toMatch(/nodeIntegration:\s*true|contextIsolation:\s*false|sandbox:\s*false|webSecurity:\s*false/);
  });

  it('main denies new windows, blocks navigation and webviews, refuses permissions, sends the CSP header', () => {
    expect(main).toMatch(/setWindowOpenHandler\([^]*?action:\s*"deny"/);
    expect(main).toMatch(/"will-navigate"[^]*?preventDefault\(\)/);
    expect(main).toMatch(/"will-attach-webview"[^]*?preventDefault\(\)/);
    expect(main).toMatch(/setPermissionRequestHandler\([^]*?callback\(false\)/);
    expect(main).toMatch(/"Content-Security-Policy":\s*\[CONTENT_SECURITY_POLICY\]/);
    for (const directive of CONTENT_SECURITY_POLICY.split('; ')) expect(main).toContain(directive);
    // Api calls are checked for their sender; media goes through the path rules.
    expect(main).toMatch(/isTrustedSender\(/);
    expect(main).toMatch(/resolveMediaPath\(/);
  });

  it('the renderer page carries a CSP meta no weaker than the header for scripts, objects and framing', () => {
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    expect(meta).not.toBeNull();
    const policy = Object.fromEntries(meta![1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
    expect(policy['script-src']).toBe("'self'");
    expect(policy['default-src']).toBe("'self'");
    expect(policy['object-src']).toBe("'none'");
    expect(policy['base-uri']).toBe("'none'");
    expect(policy['frame-ancestors']).toBe("'none'");
    expect(meta![1]).not.toMatch(/unsafe-eval/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline scripts
  });

  it('preload exposes named Api functions only, never ipcRenderer itself', () => {
    expect(preload).toMatch(/contextBridge\.exposeInMainWorld\(/);
    expect(preload).not.toMatch(/exposeInMainWorld\(\s*["']electron(API)?["']/);
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
  });
});

// ---------------------------------------------------------------------------- Api fuzzing

/** A minimal valid value for a zod schema (required keys only), or undefined when none is found. */
function sample(schema: z.ZodType): unknown {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  switch (def.type) {
    case 'string': return 'a';
    case 'number': return 1;
    case 'boolean': return true;
    case 'null': return null;
    case 'undefined': return undefined;
    case 'literal': return (def.values as unknown[])[0];
    case 'enum': return Object.values(def.entries as Record<string, unknown>)[0];
    case 'optional': return undefined;
    case 'nullable': return sample(def.innerType as z.ZodType);
    case 'array': return [sample(def.element as z.ZodType)];
    case 'record': return {};
    case 'union': return sample((def.options as z.ZodType[])[0]);
    case 'pipe': return sample(def.in as z.ZodType);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const s = sample(v);
        if (s !== undefined) out[k] = s;
      }
      return out;
    }
    default: return undefined;
  }
}

const shapeOf = (schema: z.ZodType): Record<string, z.ZodType> | null => {
  const def = (schema as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType> } } })._zod.def;
  return def.type === 'object' ? def.shape! : null;
};

const victimDir = join(base, 'victim');
const victim = join(victimDir, 'victim.csv');
const HUGE = 'A'.repeat(10 * 1024 * 1024);
let deep: unknown = 1;
for (let i = 0; i < 5000; i++) deep = [deep];
const HOSTILE: unknown[] = [
  HUGE,
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e/%2e%2e/etc/passwd',
  `${victimDir}/sub/../victim.csv`,
  "x' OR '1'='1'; DROP TABLE assets; --",
  '"; DELETE FROM keywords WHERE ""="',
  'NEAR(a b) OR * "unterminated',
  '\u0000',
  '<script>alert(1)</script>${7*7}{{7*7}}',
  '\uD800',
  -1, 0, 1.5, NaN, Infinity, -Infinity, 2 ** 64, Number.MAX_SAFE_INTEGER + 2,
  true, null, [], {},
  JSON.parse('{"__proto__": {"polluted": "yes"}}'),
  { constructor: { prototype: { polluted: 'yes' } } },
  JSON.parse('{"a": 1, "__proto__": null}'),
  deep,
  Array.from({ length: 100_000 }, () => 1),
];

/** Per field, one value of each family (the whole list goes in as the argument itself). */
const PER_FIELD: unknown[] = [HUGE, '../../etc/passwd', `${victimDir}/sub/../victim.csv`, "x' OR '1'='1'; DROP TABLE assets; --", '\u0000', -1, 1.5, NaN, 2 ** 64, null, JSON.parse('{"__proto__": {"polluted": "yes"}}'), deep, HOSTILE[HOSTILE.length - 1]];
const NESTED: unknown[] = [HUGE, "'; DROP TABLE assets; --", -1, NaN, JSON.parse('{"__proto__": {"polluted": "yes"}}'), deep];

describe('every Api method, every field, hostile values', () => {
  const dataDir = join(base, 'fuzz');
  const memory = (): KeychainBackend => {
    let v: string | null = null;
    return { get: async () => v, set: async (x) => { v = x; }, delete: async () => { v = null; return true; } };
  };
  const host = createApi(openLibrary(dataDir), { watch: false, credentials: new CredentialStore({ env: {}, backend: memory() }), serviceUrl: 'http://127.0.0.1:9' });
  afterAll(() => host.dispose());

  it('answers a readable validation (or not-found) error, never internal, never a stack or an echo, and pollutes nothing', async () => {
    mkdirSync(victimDir, { recursive: true });
    const tablesBefore = new Database(join(dataDir, 'library.sqlite')).prepare("SELECT COUNT(*) FROM sqlite_master").pluck().get();
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    let calls = 0;
    let withBaseline = 0;
    const failures: string[] = [];
    const check = async (method: string, args: unknown, where: string) => {
      calls++;
      const res = await host.invoke(method, args);
      if (res.ok) {
        if (JSON.stringify(res.value ?? null).length > 1_000_000) failures.push(`${method} ${where}: echoed a huge value`);
        return;
      }
      if (res.error.kind === 'internal') failures.push(`${method} ${where}: internal error`);
      if (/SqliteError|TypeError|RangeError|ReferenceError|at .+\.(ts|js):\d+|node_modules|\n\s+at /.test(res.error.message)) failures.push(`${method} ${where}: leaks ${res.error.message.slice(0, 120)}`);
      if (res.error.message.length > 2000) failures.push(`${method} ${where}: message of ${res.error.message.length} characters`);
    };
    for (const method of API_METHODS) {
      const schema = schemas[method as keyof typeof schemas] as z.ZodType;
      for (const h of HOSTILE) await check(method, h, 'as the argument');
      const shape = shapeOf(schema);
      if (!shape) continue;
      const baseline = sample(schema) as Record<string, unknown>;
      if (!schema.safeParse(baseline).success) continue;
      withBaseline++;
      for (const [key, field] of Object.entries(shape)) {
        for (const h of PER_FIELD) await check(method, { ...baseline, [key]: h }, `field ${key}`);
        // One level down: fields of an object-valued field (query, target, options, caps, settings).
        const inner = shapeOf(field) ?? shapeOf(((field as unknown as { _zod: { def: { innerType?: z.ZodType } } })._zod.def.innerType ?? field));
        if (!inner) continue;
        const innerBase = (baseline[key] ?? {}) as Record<string, unknown>;
        for (const sub of Object.keys(inner)) for (const h of NESTED) await check(method, { ...baseline, [key]: { ...innerBase, [sub]: h } }, `field ${key}.${sub}`);
      }
    }
    expect(failures).toEqual([]);
    expect(withBaseline).toBeGreaterThan(50);
    expect(calls).toBeGreaterThan(3000);
    // Nothing was polluted, dropped or written where the user did not choose.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
    expect(readdirSync(victimDir)).toEqual([]);
    const db = new Database(join(dataDir, 'library.sqlite'));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master").pluck().get()).toBe(tablesBefore);
    db.close();
    console.log(`api fuzz: ${calls} calls over ${API_METHODS.length} methods (${withBaseline} with a valid baseline varied field by field)`);
  });

  it('a CSV is only ever saved where the user chose in the save dialog', async () => {
    const res = await host.invoke('exportCsv', { ids: [1], agency: 'adobe', path: victim });
    expect(res).toMatchObject({ ok: false });
    expect(existsSync(victim)).toBe(false);
  });
});

// ---------------------------------------------------------------------------- media

describe('media paths outside the roots are refused', () => {
  const lib = join(base, 'media', 'library');
  const cache = join(base, 'media', 'cache');
  const secret = join(base, 'media', 'secret');
  const roots = [lib, cache];
  beforeAll(() => {
    for (const d of [lib, cache, secret, join(lib, 'sub')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(lib, 'ok.jpg'), 'jpeg');
    writeFileSync(join(lib, 'sub', 'ok2.jpg'), 'jpeg');
    writeFileSync(join(secret, 'passwd'), 'root:x:0:0');
    symlinkSync(secret, join(lib, 'escape-dir'));
    symlinkSync(join(secret, 'passwd'), join(lib, 'sub', 'escape.jpg'));
    symlinkSync('../../secret/passwd', join(lib, 'sub', 'relative-escape.jpg'));
  });

  const enc = (p: string) => '/m/' + encodeURIComponent(p);
  const refused: [string, string][] = [
    ['outside file', () => enc(join(secret, 'passwd'))],
    ['symlinked folder leading out', () => enc(join(lib, 'escape-dir', 'passwd'))],
    ['symlinked file leading out', () => enc(join(lib, 'sub', 'escape.jpg'))],
    ['relative symlink leading out', () => enc(join(lib, 'sub', 'relative-escape.jpg'))],
    ['encoded ../ after a root', () => `/m/${encodeURIComponent(lib)}%2F%2e%2e%2F%2e%2e%2Fsecret%2Fpasswd`],
    ['mixed-case encoded dots', () => `/m/${encodeURIComponent(lib)}%2F%2E%2E%2Fsecret%2Fpasswd`],
    ['raw ../ after a root', () => `/m/${lib}/../secret/passwd`],
    ['double-encoded dots', () => `/m/${encodeURIComponent(lib)}%2F%252e%252e%2F%252e%252e%2Fsecret%2Fpasswd`],
    ['relative path', () => '/m/..%2F..%2Fetc%2Fpasswd'],
    ['encoded relative path', () => '/m/%2e%2e%2f%2e%2e%2fetc%2fpasswd'],
    ['/etc/passwd', () => enc('/etc/passwd')],
    ['NUL byte', () => enc(join(lib, 'ok.jpg') + '\0.png')],
    ['sibling with the root as prefix', () => enc(lib + '-evil/x.jpg')],
    ['backslashes', () => `/m/${encodeURIComponent(lib)}%5C..%5C..%5Csecret%5Cpasswd`],
    ['not a token', () => '/etc/passwd'],
    ['malformed escape', () => '/m/%E0%A4%A'],
  ].map(([name, f]) => [name as string, (f as () => string)()]);

  it.each(refused)('resolveMediaPath refuses %s', (_name, url) => {
    const r = resolveMediaPath(url, roots);
    expect(r.ok).toBe(false);
  });

  it('resolveMediaPath serves what is inside', () => {
    expect(resolveMediaPath('/' + mediaToken(join(lib, 'sub', 'ok2.jpg')), roots)).toEqual({ ok: true, path: join(lib, 'sub', 'ok2.jpg') });
  });

  it('the e2e static server refuses the same, and its static files cannot be escaped', async () => {
    const server = await startServer(async () => roots);
    const get = (path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const u = new URL(server.origin);
      const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => { body += d.toString(); });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      for (const [name, url] of refused.filter(([n]) => n !== 'not a token')) {
        const r = await get(url.replace(/\0/g, '%00'));
        expect([400, 403, 404], name).toContain(r.status);
        expect(r.body, name).not.toContain('root:x:0:0');
      }
      expect((await get('/' + mediaToken(join(lib, 'ok.jpg')))).body).toBe('jpeg');
      for (const path of ['/../../../etc/passwd', '/..%2f..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2F..%2F..%2Fpackage.json', '/%2e%2e%2fmain%2findex.js']) {
        const r = await get(path);
        expect(r.status, path).toBe(404);
        expect(r.body, path).not.toMatch(/root:|"name": "tagsmith"|contextIsolation/);
      }
      expect((await get('/')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------------------- secrets at rest

describe('after a realistic run with credentials, the secret is nowhere under the data directory', () => {
  it('logs in, keywords photos against the simulator, writes files and CSV; then greps every byte', async () => {
    const clientId = `id-${randomBytes(4).toString('hex')}`;
    const secret = `S3cr3t-${randomBytes(24).toString('base64url')}`;
    const sim = await startSimulator({ port: 0, accounts: [{ clientId, clientSecret: secret }] });
    const dataDir = join(base, 'secrets', 'data');
    const photos = join(base, 'secrets', 'photos');
    mkdirSync(photos, { recursive: true });
    for (let i = 0; i < 4; i++) await sharp({ create: { width: 320 + i, height: 300, channels: 3, background: '#8a5' } }).jpeg().toFile(join(photos, `s${i}.jpg`));
    setLogFile(join(dataDir, 'logs', 'main.log'));
    log.info('hardening: a realistic run with credentials starts');
    // The real keychain when one is reachable (CI runs under scripts/with-keyring.sh), else the session fallback.
    const credentials = new CredentialStore({ env: {}, service: `tagsmith-hardening-${randomBytes(4).toString('hex')}` });
    const seen: string[] = [];
    const ctx = openLibrary(dataDir);
    ctx.events.onAny((name, payload) => seen.push(`${name} ${JSON.stringify(payload)}`));
    const host = createApi(ctx, { watch: false, credentials, serviceUrl: sim.url });
    const call = async (method: string, args: unknown) => {
      const r = await host.invoke(method, args);
      seen.push(JSON.stringify(r));
      return r;
    };
    const needles = [
      secret, `${clientId}:${secret}`, Buffer.from(`${clientId}:${secret}`).toString('base64'), Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    ];
    const wide = Buffer.from(secret, 'utf16le');
    const grepAll = (): string[] => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) files.push(p);
      }
    };
    walk(join(base, 'secrets'));
    expect(files.some((f) => f.endsWith('library.sqlite'))).toBe(true);
    expect(files.some((f) => f.endsWith('main.log'))).toBe(true);
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const n of needles) expect(bytes.includes(Buffer.from(n)), `${n.slice(0, 12)}… in ${f}`).toBe(false);
      expect(bytes.includes(wide), `UTF-16 secret in ${f}`).toBe(false);
    }
    return files;
    };
    let openFiles: string[];
    try {
      // A wrong secret first: a 401 is logged and shown, the secret typed is not.
      const wrong = `Wr0ng-${randomBytes(16).toString('hex')}`;
      await call('setCredentials', { clientId, clientSecret: wrong });
      await call('testConnection', undefined);
      expect((await call('setCredentials', { clientId, clientSecret: secret })).ok).toBe(true);
      expect(await call('testConnection', undefined)).toMatchObject({ ok: true });
      const folder = await call('addFolder', { path: photos });
      expect(folder.ok).toBe(true);
      await until(async () => {
        const f = await host.invoke('listFolders', undefined);
        return f.ok && (f.value as { assetCount: number; scanning: boolean }[])[0].assetCount === 4 && !(f.value as { scanning: boolean }[])[0].scanning;
      }, 'scan');
      const ids = (ctx.db.prepare('SELECT id FROM assets').pluck().all() as number[]);
      const started = await call('startKeywordRun', { target: { assetIds: ids }, options: {} });
      expect(started.ok).toBe(true);
      await host.service.queue.waitForIdle();
      expect(sim.billed()[clientId].keywords).toBe(4);
      await call('acceptAbove', { assetIds: ids, minScore: 0.5 });
      await call('setCaption', { ids, caption: 'A caption' });
      const written = await call('writeMetadata', { ids });
      expect(written.ok).toBe(true);
      await call('exportCsv', { ids, agency: 'adobe' });
      await call('serviceSettings', undefined);
      await call('queueStatus', undefined);
      await call('listJobs', {});
      // While the app is still open: the WAL and shared-memory files are there too.
      openFiles = grepAll();
      expect(openFiles.some((f) => f.endsWith('library.sqlite-wal'))).toBe(true);
    } finally {
      await host.dispose();
      await credentials.remove().catch(() => undefined);
      await sim.close();
    }
    const files = grepAll();
    // Neither in any Api answer nor in any event the renderer would receive.
    const all = seen.join('\n');
    for (const n of needles) expect(all.includes(n)).toBe(false);
    expect(all).not.toContain('Wr0ng-');
    expect(statSync(join(dataDir, 'library.sqlite')).size).toBeGreaterThan(0);
    console.log(`secrets: ${openFiles.length} files while open (WAL included) and ${files.length} after closing (${files.reduce((a, f) => a + statSync(f).size, 0)} bytes) grepped, ${seen.length} answers/events checked`);
  });
});
