import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Two members of one studio, each with a library of its own over the same folder of photos,
// each its own process: what one keywords, captions and rates reaches the other through
// `tagsmith studio sync`, by the studio's conflict rules (latest edit of a field wins by the
// hybrid logical clock, keywords merge as adds and removes).

const missing = await studioTestsMissing('the studio sync tests', { keychain: true });

interface Shown {
  keywords: string[];
  caption: string | null;
  rating: number | null;
}

describe.skipIf(missing !== null)('studio sync between two members', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  let served: { url: string };
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const libA = mkdtempSync(join(tmpdir(), 'tagsmith-member-a-'));
  const libB = mkdtempSync(join(tmpdir(), 'tagsmith-member-b-'));
  const red = join(photos, 'shoot', 'red.jpg');
  const blue = join(photos, 'shoot', 'blue.jpg');

  const ok = async (lib: string, args: string[], input?: string) => {
    const r = await tagsmith(lib, args, { input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  const show = async (lib: string, path: string): Promise<Shown> => (await ok(lib, ['show', path, '--json'])).json<Shown>();
  const sync = async (lib: string) => (await ok(lib, ['studio', 'sync', '--json'])).json<{ pushed: number; pulled: number; applied: { applied: number; older: number } }>();

  beforeAll(async () => {
    mkdirSync(join(photos, 'shoot'));
    await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 0, b: 0 } } }).jpeg().toFile(red);
    await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 0, g: 0, b: 200 } } }).jpeg().toFile(blue);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    for (const [name, role] of [['ana', 'editor'], ['ben', 'editor']]) {
      await ok(libA, ['serve', 'user', 'add', name, '--role', role, '--database', pgc.url('studio'), '--password-stdin'], `${name}-secret-1\n`);
    }
    ({ child: server, served } = await serveStudio(pgc.url('studio')));
    for (const [lib, user] of [[libA, 'ana'], [libB, 'ben']]) {
      await ok(lib, ['index', join(photos, 'shoot')]);
      await ok(lib, ['studio', 'join', served.url, '--user', user, '--password-stdin', '--yes'], `${user}-secret-1\n`);
    }
  });

  afterAll(async () => {
    for (const lib of [libA, libB]) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('brings one member’s keywords, caption and rating to the other', async () => {
    await ok(libA, ['tag', red, '--add', 'beach,sunset']);
    await ok(libA, ['caption', red, '--set', 'Red boat at dusk']);
    await ok(libA, ['rate', red, '--stars', '4']);
    const status = (await ok(libA, ['studio', 'status', '--json'])).json<{ server: string; user: string; connected: boolean; pendingChanges: number; lastSyncAt: string | null }>();
    expect(status).toMatchObject({ server: new URL(served.url).origin, user: 'ana', connected: true, lastSyncAt: null });
    expect(status.pendingChanges).toBe(4);

    expect((await sync(libA)).pushed).toBe(4);
    expect((await ok(libA, ['studio', 'status', '--json'])).json<{ pendingChanges: number }>().pendingChanges).toBe(0);
    expect((await sync(libB)).applied.applied).toBe(4);
    expect(await show(libB, red)).toMatchObject({ keywords: ['beach', 'sunset'], caption: 'Red boat at dusk', rating: 4 });
    // A second sync has nothing new, and applies nothing twice.
    expect(await sync(libB)).toMatchObject({ pushed: 0, pulled: 0 });
  });

  it('keeps both members’ keywords and the latest caption, whichever syncs first', async () => {
    await ok(libA, ['tag', blue, '--add', 'harbour']);
    await ok(libA, ['caption', blue, '--set', 'first caption (Ana)']);
    await ok(libB, ['tag', blue, '--add', 'boats']);
    await ok(libB, ['caption', blue, '--set', 'later caption (Ben)']);
    // Ben's later edit reaches the studio first; Ana's earlier one after it, and loses.
    await sync(libB);
    await sync(libA);
    await sync(libB);
    for (const lib of [libA, libB]) {
      const shown = await show(lib, blue);
      expect([...shown.keywords].sort()).toEqual(['boats', 'harbour']);
      expect(shown.caption).toBe('later caption (Ben)');
    }
  });

  it('a keyword removed after it was added is removed everywhere; an undo is a change like any other', async () => {
    await ok(libB, ['tag', red, '--remove', 'sunset']);
    await sync(libB);
    await sync(libA);
    expect((await show(libA, red)).keywords).toEqual(['beach']);
    await ok(libA, ['undo']); // Ana's last own edit: the caption of blue goes back
    await sync(libA);
    await sync(libB);
    expect((await show(libB, blue)).caption).toBe((await show(libA, blue)).caption);
  });

  it('an undo takes back only one’s own keywords: one a member added since stays, on both machines', async () => {
    await ok(libA, ['tag', blue, '--add', 'mine']);
    await sync(libA);
    await sync(libB);
    await ok(libB, ['tag', blue, '--add', 'theirs']);
    await sync(libB);
    await sync(libA);
    const had = (await show(libA, blue)).keywords;
    expect(had).toEqual(expect.arrayContaining(['mine', 'theirs']));
    await ok(libA, ['undo']); // Ana's "add mine" only
    await sync(libA);
    await sync(libB);
    for (const lib of [libA, libB]) expect([...(await show(lib, blue)).keywords].sort()).toEqual(had.filter((k) => k !== 'mine').sort());
  });
});
