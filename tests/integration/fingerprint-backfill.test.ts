import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type ApiHost } from '../../src-main/api';
import { waitForJobs } from '../../src-main/jobs/wait';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { countMissingFingerprints, findGroups } from '../../src-main/library/similarity';
import { FINGERPRINT_BATCH_LABEL, FINGERPRINT_KIND, FINGERPRINT_LANE } from '../../src-main/workflows/fingerprint-backfill';
import { BURST_EDITS, frame, writeBurst } from '../fixtures/bursts';

// Issue 17: a library catalogued before fingerprints existed gets them in the background when
// the app opens it: a batch in the job queue (Activity) that computes them from the cached
// thumbnails; cancelled, it stops; cut short by quitting, it goes on at the next start
// without being queued twice.

const BIN = resolve(__dirname, '../../bin/tagsmith.js');
let root: string;
let library: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-fp-backfill-')));
  const photos = join(root, 'photos');
  library = join(root, 'lib');
  await writeBurst(photos, 51, 'IMG_A', 3);
  await sharp(await frame(52, BURST_EDITS[0])).toFile(join(photos, 'other.jpg'));
  const r = spawnSync(process.execPath, [BIN, '--library', library, 'index', photos], { encoding: 'utf8', input: '', env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1' } });
  expect(r.status, r.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** As a library catalogued before fingerprints: none stored. */
function forgetFingerprints(ctx: LibraryCtx): void {
  ctx.db.prepare('DELETE FROM asset_fingerprints').run();
  expect(countMissingFingerprints(ctx.db)).toBe(4);
}

async function batchEnded(host: ApiHost): Promise<string> {
  const [batch] = (await host.api.listBatches({})).filter((b) => b.label === FINGERPRINT_BATCH_LABEL);
  expect(batch).toBeDefined();
  const jobs = await host.api.listJobs({ batchId: batch.id });
  await waitForJobs(host.service.queue, jobs.map((j) => j.id), { lane: FINGERPRINT_LANE, batchId: batch.id });
  return batch.id;
}

describe('fingerprint back-fill', () => {
  it('runs as a background batch when the app opens a library that lacks fingerprints', async () => {
    const ctx = openLibrary(library);
    forgetFingerprints(ctx);
    const host = createApi(ctx, { watch: false, backfillFingerprints: true });
    try {
      const id = await batchEnded(host);
      const jobs = await host.api.listJobs({ batchId: id });
      expect(jobs.every((j) => j.kind === FINGERPRINT_KIND && j.state === 'done' && j.lane === FINGERPRINT_LANE)).toBe(true);
      expect(countMissingFingerprints(ctx.db)).toBe(0);
      expect(findGroups(ctx.db).map((g) => g.members.length)).toEqual([3]);
    } finally {
      await host.dispose();
    }
    // Opened again with nothing missing: no batch.
    const again = createApi(openLibrary(library), { watch: false, backfillFingerprints: true });
    try {
      expect((await again.api.listBatches({})).filter((b) => b.label === FINGERPRINT_BATCH_LABEL)).toHaveLength(1);
    } finally {
      await again.dispose();
    }
  });

  it('is cancelled from Activity, and a batch cut short goes on at the next start without being queued twice', async () => {
    let ctx = openLibrary(library);
    forgetFingerprints(ctx);
    // Quit before it ran: the batch stays queued in the catalogue.
    const first = createApi(ctx, { watch: false, backfillFingerprints: true, startQueue: false });
    const batches = (await first.api.listBatches({})).filter((b) => b.label === FINGERPRINT_BATCH_LABEL);
    const pending = batches.find((b) => (b.counts.queued ?? 0) > 0)!;
    expect(pending).toBeDefined();
    await first.dispose();
    ctx = openLibrary(library);
    expect(countMissingFingerprints(ctx.db)).toBe(4);

    const second = createApi(ctx, { watch: false, backfillFingerprints: true });
    try {
      // The same batch, not a second one.
      expect((await second.api.listBatches({})).filter((b) => b.label === FINGERPRINT_BATCH_LABEL)).toHaveLength(batches.length);
      await batchEnded(second);
      expect(countMissingFingerprints(ctx.db)).toBe(0);
    } finally {
      await second.dispose();
    }

    // Cancelled: it stops, and what was not computed stays missing (computed on the next open).
    ctx = openLibrary(library);
    forgetFingerprints(ctx);
    const third = createApi(ctx, { watch: false, backfillFingerprints: true, startQueue: false });
    try {
      const [latest] = (await third.api.listBatches({})).filter((b) => b.label === FINGERPRINT_BATCH_LABEL && (b.counts.queued ?? 0) > 0);
      await third.api.controlQueue({ action: 'cancel', target: { type: 'batch', id: latest.id } });
      third.service.queue.start();
      const jobs = await third.api.listJobs({ batchId: latest.id });
      expect(jobs.every((j) => j.state === 'cancelled')).toBe(true);
      expect(countMissingFingerprints(ctx.db)).toBe(4);
    } finally {
      await third.dispose();
    }
  });
});
