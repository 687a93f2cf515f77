import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioState } from '../../src-preload/contract';
import { createApi, type ApiHost } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addUser } from '../../src-main/studio/server/accounts';
import { startStudioServer, type StudioServer } from '../../src-main/studio/server/http';
import { loadIdentity } from '../../src-main/studio/server/identity';
import { StudioStore } from '../../src-main/studio/server/store';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { studioTestsMissing } from '../helpers/studio';
import { until } from '../helpers/until';

// The app's side of the studio, through the Api as the window calls it: join in two steps
// (probe, then join with the confirmed fingerprint), then continuous sync: an edit in one app
// reaches the other without anyone pressing anything, and the state the top bar shows follows.

const missing = await studioTestsMissing('the studio Api tests', { keychain: true });

describe.skipIf(missing !== null)('the app syncs with its studio by itself', () => {
  let pgc: Postgres;
  let store: StudioStore;
  let server: StudioServer;
  const hosts: ApiHost[] = [];
  const ctxs: LibraryCtx[] = [];
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const file = join(photos, 'set', 'harbour.jpg');

  beforeAll(async () => {
    mkdirSync(join(photos, 'set'));
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#347' } }).jpeg().toFile(file);
    pgc = startPostgres();
    pgc.createDatabase('studio');
    store = await StudioStore.open(pgc.url('studio'));
    await addUser(store, 'ana', 'editor', 'ana-secret-1');
    await addUser(store, 'ben', 'editor', 'ben-secret-1');
    server = await startStudioServer(store, { host: '127.0.0.1', port: 0, tls: await loadIdentity(store, {}) });
    for (const name of ['a', 'b']) {
      const ctx = openLibrary(mkdtempSync(join(tmpdir(), `tagsmith-app-${name}-`)));
      ctxs.push(ctx);
      const host = createApi(ctx, { watch: false });
      await host.api.addFolder({ path: join(photos, 'set') });
      await host.scanner.waitForIdle();
      hosts.push(host);
    }
  });

  afterAll(async () => {
    for (const h of hosts) {
      if ((await h.api.studioStatus()).member) await h.api.studioLeave();
      await h.dispose();
    }
    await server?.close();
    await store?.close();
    pgc?.stop();
  });

  it('joins after the fingerprint is shown, refusing a fingerprint that is not the server’s', async () => {
    const [a, b] = hosts.map((h) => h.api);
    // Only an HTTPS address is looked up at all: anything else is refused before any network is touched.
    for (const url of ['studio-server', 'http://studio-server:8443', 'https://user@studio-server', 'https://studio-server/path']) {
      expect(await hosts[0].invoke('studioProbe', { url })).toMatchObject({ ok: false, error: { kind: 'validation', field: 'url' } });
    }
    const probe = await a.studioProbe({ url: server.url });
    expect(probe).toEqual({ url: server.url, studioName: 'Studio', fingerprint: server.fingerprint, sharedPhotos: 0 });
    const other = server.fingerprint.replace(/^../, server.fingerprint.startsWith('00') ? '11' : '00');
    await expect(a.studioJoin({ url: server.url, user: 'ana', password: 'ana-secret-1', fingerprint: other })).rejects.toMatchObject({ kind: 'io', message: expect.stringContaining('certificate has changed') });
    expect((await a.studioStatus()).member).toBe(false);
    const joined = await a.studioJoin({ url: server.url, user: 'ana', password: 'ana-secret-1', fingerprint: probe.fingerprint });
    expect(joined).toMatchObject({ member: true, studio: { name: 'Studio' }, user: 'ana', role: 'editor', pendingChanges: 0 });
    await b.studioJoin({ url: server.url, user: 'ben', password: 'ben-secret-1', fingerprint: probe.fingerprint });
  });

  it('an edit in one app reaches the other by itself, and the state follows', async () => {
    const [a, b] = hosts.map((h) => h.api);
    const idA = findAssetByPath(ctxs[0], file)!;
    const idB = findAssetByPath(ctxs[1], file)!;
    const seen: StudioState[] = [];
    const off = ctxs[0].events.on('studioChanged', (s) => seen.push(s));
    await a.editKeywords({ ids: [idA], add: ['harbour', 'boats'] });
    await a.setCaption({ ids: [idA], caption: 'Boats at the harbour' });
    const got = await until(async () => {
      const asset = await b.getAsset({ id: idB });
      return asset.caption === 'Boats at the harbour' && asset.keywords.length === 2 ? asset : null;
    }, 'the caption and keywords to reach the other app');
    expect([...got.keywords].sort()).toEqual(['boats', 'harbour']);
    await until(async () => {
      const s = await a.studioStatus();
      return s.connected && s.pendingChanges === 0 && s.lastSyncAt !== null;
    }, 'the first app to have sent everything');
    expect(seen.some((s) => s.pendingChanges > 0)).toBe(true);
    off();
  });

  it('says when the server cannot be reached, keeps the edits, and sends them when it is back', async () => {
    const [a, b] = hosts.map((h) => h.api);
    const port = Number(new URL(server.url).port);
    await server.close();
    const idA = findAssetByPath(ctxs[0], file)!;
    const idB = findAssetByPath(ctxs[1], file)!;
    await a.setRating({ ids: [idA], rating: 5 });
    const offline = await a.studioSyncNow();
    expect(offline).toMatchObject({ connected: false, pendingChanges: 1 });
    expect(offline.error).toContain('Cannot reach the studio server');
    server = await startStudioServer(store, { host: '127.0.0.1', port, tls: await loadIdentity(store, {}) });
    expect(await a.studioSyncNow()).toMatchObject({ connected: true, pendingChanges: 0, error: null });
    await until(async () => (await b.getAsset({ id: idB })).rating === 5, 'the rating to reach the other app');
  });
});
