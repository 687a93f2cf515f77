import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi, type ApiHost } from '../../src-main/api';
import { CredentialStore } from '../../src-main/credentials';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { readTags } from '../../src-main/metadata/file-writer';
import { WRITE_LANE } from '../../src-main/metadata/write-job';
import { until } from '../helpers/until';

// Writing into files goes through the durable queue: it shows as a batch, pauses and resumes
// with the user's "pause all", and no service hold (offline, quota, credentials) stops it.

let host: ApiHost | null = null;
afterEach(async () => {
  await host?.dispose();
  host = null;
});

async function library(n: number) {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-writejob-'));
  const photos = join(root, 'photos');
  mkdirSync(photos);
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = join(photos, `p${i}.jpg`);
    await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40 * i, g: 90, b: 160 } } }).jpeg().toFile(f);
    files.push(f);
  }
  const ctx = openLibrary(join(root, 'lib'));
  // An address where nothing listens: any service call goes offline.
  host = createApi(ctx, {
    watch: false,
    serviceUrl: 'http://127.0.0.1:9',
    credentials: new CredentialStore({ env: { TAGSMITH_CLIENT_ID: 'id', TAGSMITH_CLIENT_SECRET: 'secret' } }),
  });
  const folder = await host.api.addFolder({ path: photos });
  await host.scanner.waitForIdle();
  const ids = files.map((f) => findAssetByPath(ctx, f)!);
  expect(ids.every(Boolean)).toBe(true);
  return { ctx, files, ids, folder };
}

describe('writing metadata as queue jobs', () => {
  it('writes a batch, visible as a batch in the local lane', async () => {
    const { files, ids } = await library(3);
    const api = host!.api;
    await api.editKeywords({ ids, add: ['harbour', 'evening'] });
    const results = await api.writeMetadata({ ids });
    expect(results.map((r) => r.status)).toEqual(['written', 'written', 'written']);
    for (const f of files) expect((await readTags(f))['XMP-dc:Subject']).toEqual(['harbour', 'evening']);
    const [batch] = await api.listBatches({});
    expect(batch).toMatchObject({ label: 'Write metadata into 3 files', total: 3, counts: { done: 3 } });
    const jobs = await api.listJobs({ batchId: batch.id });
    expect(new Set(jobs.map((j) => j.lane))).toEqual(new Set([WRITE_LANE]));
  });

  it('waits while the user has paused everything, then finishes on resume', async () => {
    const { files, ids } = await library(2);
    const api = host!.api;
    await api.setCaption({ ids, caption: 'Written after resume' });
    await api.controlQueue({ action: 'pause', target: { type: 'all' } });
    const paused = await api.writeMetadata({ ids });
    expect(paused.map((r) => r.status)).toEqual(['queued', 'queued']);
    expect((await readTags(files[0]))['XMP-dc:Description']).toBeUndefined();
    await api.controlQueue({ action: 'resume', target: { type: 'all' } });
    await host!.service.queue.waitForIdle();
    for (const f of files) expect((await readTags(f))['XMP-dc:Description']).toBe('Written after resume');
  });

  it('returns once the user pauses the batch part-way: what ran is written, the rest waits', async () => {
    const { files, ids } = await library(4);
    const api = host!.api;
    const queue = host!.service.queue;
    await api.setTitle({ ids, title: 'Paused part-way' });
    // The user pauses the batch as soon as its first file is written.
    const off = queue.on('job', (j) => {
      if (j.state === 'done' && j.batchId) {
        off();
        void api.controlQueue({ action: 'pause', target: { type: 'batch', id: j.batchId } });
      }
    });
    const results = await api.writeMetadata({ ids });
    expect(results[0].status).toBe('written');
    expect(results[3].status).toBe('queued');
    const written = results.filter((r) => r.status === 'written').length;
    expect(results.slice(written).every((r) => r.status === 'queued')).toBe(true);
    for (const [i, f] of files.entries()) expect((await readTags(f))['XMP-dc:Title']).toBe(i < written ? 'Paused part-way' : undefined);
    const [batch] = await api.listBatches({});
    await api.controlQueue({ action: 'resume', target: { type: 'batch', id: batch.id } });
    await queue.waitForIdle();
    for (const f of files) expect((await readTags(f))['XMP-dc:Title']).toBe('Paused part-way');
  });

  it('is not stopped by a service hold: offline analysis waits, writing goes on', async () => {
    const { files, ids } = await library(1);
    const api = host!.api;
    const queue = host!.service.queue;
    queue.enqueue({ kind: 'analyze', payload: { file: files[0], endpoint: 'keywords' } });
    await until(() => queue.status().hold?.reason === 'offline', 'the offline hold');
    await api.setTitle({ ids, title: 'Still written' });
    const [r] = await api.writeMetadata({ ids });
    expect(r.status).toBe('written');
    expect((await readTags(files[0]))['XMP-dc:Title']).toBe('Still written');
  });
});
