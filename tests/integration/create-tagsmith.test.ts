import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { createTagsmith } from '../../src-main/api/tagsmith';
import { openLibrary } from '../../src-main/library/context';
import { FINGERPRINT_KIND } from '../../src-main/workflows/fingerprint-backfill';

// One place assembles the queue with every job kind (issue 33, point 5): a CLI command that
// runs the queue (here `tagsmith keyword`) meets the jobs the app left queued in the library —
// the app's fingerprint back-fill — and runs them, where before it failed each one with "This
// version of Tagsmith cannot run 'fingerprints' jobs".

const creds = { clientId: 'one-place', clientSecret: 'one-place-secret' };
let sim: Simulator;
let root: string;
let photos: string;
let library: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-one-place-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos, { recursive: true });
  for (const [name, c] of Object.entries({ 'a.jpg': '#2f6fe0', 'b.jpg': '#d03a2a' })) {
    await sharp({ create: { width: 320, height: 200, channels: 3, background: c } }).jpeg().withMetadata({ orientation: 1 }).toFile(join(photos, name));
  }
  const idx = await tagsmith(library, ['index', photos, '--json']);
  expect(idx.code, idx.stderr).toBe(0);
});

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('createTagsmith: every job kind in one place', () => {
  it('a CLI command that runs the queue finishes the jobs the app left queued instead of failing them', async () => {
    // The app queues a fingerprint batch and quits before it runs.
    const ctx = openLibrary(library);
    const app = createTagsmith(ctx, { startQueue: false });
    const ids = ctx.db.prepare('SELECT id FROM assets ORDER BY id').pluck().all() as number[];
    const { jobIds } = await app.queue.enqueueBatchInSteps('Fingerprints for similar photos', [{ kind: FINGERPRINT_KIND, payload: { assetIds: ids } }]);
    await app.dispose();
    ctx.db.close();

    const r = await tagsmith(library, ['keyword', join(photos, 'a.jpg'), '--json'], { serviceUrl: sim.url, creds });
    expect(r.code, r.stderr).toBe(0);

    const after = openLibrary(library);
    try {
      const job = after.db.prepare('SELECT state, error_message FROM jobs WHERE id = ?').get(jobIds[0]) as { state: string; error_message: string | null };
      expect(job).toEqual({ state: 'done', error_message: null });
      const failed = after.db.prepare("SELECT count(*) FROM jobs WHERE state = 'failed'").pluck().get();
      expect(failed).toBe(0);
    } finally {
      after.db.close();
    }
  });
});
