import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Libraries that already hold keywords and captions join a studio: what they hold is shared
// (said before joining), keywords of the same photo merge, a field two libraries disagree on
// ends the same on both, a newcomer gets it all, and any real edit made in the studio later wins.

const missing = await studioTestsMissing('the studio seeding tests', { keychain: true });

interface Shown {
  keywords: string[];
  caption: string | null;
  rating: number | null;
}

describe.skipIf(missing !== null)('libraries with work in them join a studio', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let url: string;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const libs = { a: mkdtempSync(join(tmpdir(), 'tagsmith-a-')), b: mkdtempSync(join(tmpdir(), 'tagsmith-b-')), c: mkdtempSync(join(tmpdir(), 'tagsmith-c-')) };
  const boat = join(photos, 'set', 'boat.jpg');

  const ok = async (lib: string | null, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const show = async (lib: string): Promise<Shown> => (await ok(lib, ['show', boat, '--json'])).json<Shown>();

  beforeAll(async () => {
    mkdirSync(join(photos, 'set'));
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#468' } }).jpeg().toFile(boat);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const name of ['ana', 'ben', 'cy']) await ok(null, ['serve', 'user', 'add', name, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    url = started.served.url;
    for (const lib of Object.values(libs)) await ok(lib, ['index', join(photos, 'set')]);
    // Work done before anyone joined.
    await ok(libs.a, ['tag', boat, '--add', 'boat,harbour']);
    await ok(libs.a, ['caption', boat, '--set', 'Ana’s caption']);
    await ok(libs.a, ['rate', boat, '--stars', '3']);
    await ok(libs.b, ['tag', boat, '--add', 'boat,dawn']);
    await ok(libs.b, ['caption', boat, '--set', 'Ben’s caption']);
  });

  afterAll(async () => {
    for (const lib of Object.values(libs)) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('says what will be shared, then shares it: keywords merge, a disputed caption ends the same everywhere', async () => {
    const joinA = (await ok(libs.a, ['studio', 'join', url, '--user', 'ana', '--password-stdin', '--yes', '--json'], 'ana-secret-1\n')).json<{ sharedPhotos: number }>();
    expect(joinA.sharedPhotos).toBe(1);
    await ok(libs.a, ['studio', 'sync']);
    const joinB = await ok(libs.b, ['studio', 'join', url, '--user', 'ben', '--password-stdin', '--yes'], 'ben-secret-1\n');
    expect(joinB.stdout).toContain('1 photo of this library with keywords, captions, ratings, labels or rights fields will be shared');
    await ok(libs.b, ['studio', 'sync']);
    await ok(libs.a, ['studio', 'sync']);
    const a = await show(libs.a);
    const b = await show(libs.b);
    expect([...a.keywords].sort()).toEqual(['boat', 'dawn', 'harbour']);
    expect([...b.keywords].sort()).toEqual(['boat', 'dawn', 'harbour']);
    expect(a.rating).toBe(3);
    expect(b.rating).toBe(3);
    expect(['Ana’s caption', 'Ben’s caption']).toContain(a.caption);
    expect(b.caption).toBe(a.caption);
  });

  it('a newcomer gets everything; a real edit made later beats what the libraries brought', async () => {
    await ok(libs.c, ['studio', 'join', url, '--user', 'cy', '--password-stdin', '--yes'], 'cy-secret-1\n');
    await ok(libs.c, ['studio', 'sync']);
    const c = await show(libs.c);
    expect([...c.keywords].sort()).toEqual(['boat', 'dawn', 'harbour']);
    expect(c.caption).toBe((await show(libs.a)).caption);
    await ok(libs.c, ['caption', boat, '--set', 'Fishing boat at dawn']);
    await ok(libs.c, ['tag', boat, '--remove', 'dawn']);
    await ok(libs.c, ['studio', 'sync']);
    for (const lib of [libs.a, libs.b]) {
      await ok(lib, ['studio', 'sync']);
      const s = await show(lib);
      expect(s.caption).toBe('Fishing boat at dawn');
      expect([...s.keywords].sort()).toEqual(['boat', 'harbour']);
    }
  });
});
