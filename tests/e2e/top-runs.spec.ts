import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 35, point 3: runs under way (here a write into files) show in the library's top bar
// beside the scan's progress: their name, how far they are, and Cancel; the top bar keeps its
// view switcher whole at 1280 × 800. The run is held by pausing the queue, so what the
// test looks at does not depend on how fast the machine is.

test('a write under way shows in the top bar with its counts and a Cancel; nothing clips at 1280 × 800', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = [...(await api.searchIds({ query: {} }))].slice(0, 3);
  await api.setLabel({ ids, label: 'green' });

  // Work waits while the queue is paused (Activity's Pause all).
  await api.controlQueue({ action: 'pause', target: { type: 'all' } });
  const queue = app.host.service.queue;
  const { batch } = queue.enqueueBatch('Write metadata into 3 files', ids.map((assetId) => ({ kind: 'writeMetadata', payload: { assetId } })));

  const run = page.locator(`[data-testid="queue-run"][data-batch-id="${batch.id}"]`);
  await expect(run).toBeVisible();
  await expect(run.getByTestId('queue-run-label')).toHaveText('Write metadata into 3 files');
  await expect(run.getByTestId('queue-run-count')).toHaveText('0 / 3');
  await shot(page, 'top-runs-1440');
  expect(await lowContrast(page.locator('header').first()), 'top bar').toEqual([]);

  // At 1280 × 800 the run's name gives way; the view switcher stays whole and inside the window.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(run).toBeVisible();
  const nav = page.getByTestId('nav-activity');
  const box = (await nav.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(1280);
  const clipped = await page.locator('.topbar').evaluate((el) => el.scrollWidth > el.clientWidth + 1);
  expect(clipped).toBe(false);
  const navClipped = await page.locator('.view-nav').evaluate((el) => el.getBoundingClientRect().right > el.parentElement!.getBoundingClientRect().right + 1 || el.scrollWidth > el.clientWidth + 1);
  expect(navClipped).toBe(false);
  // The run's Cancel sits before the view switcher, not under it.
  const cancelBox = (await run.getByTestId('queue-run-cancel').boundingBox())!;
  const navLeft = (await page.locator('.view-nav').boundingBox())!.x;
  expect(cancelBox.x + cancelBox.width).toBeLessThanOrEqual(navLeft);
  await shot(page, 'top-runs-1280');

  // Cancel, asked first: the three jobs stop, and the run leaves the top bar.
  await run.getByTestId('queue-run-cancel').click();
  const confirm = page.getByTestId('confirm-queue-run-cancel');
  await expect(confirm).toContainText('The 3 not yet done stop');
  await confirm.getByRole('button', { name: 'Cancel the rest' }).click();
  await expect(run).toHaveCount(0);
  const jobs = await api.listJobs({ batchId: batch.id, limit: 10 });
  expect(jobs.map((j) => j.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  // Nothing was written to the files.
  for (const id of ids) expect((await api.syncState({ id })).writtenAt).toBeNull();
});

// A run with a failure says so in the top bar, in red, while the rest of it is still to go:
// here a write whose first photo left the library (it fails at once) and whose second is held
// (paused by itself), so the run stays under way with one failed.
test('a run with a failed job shows its failure count in red in the top bar while the rest is to go', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1280, height: 800 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const [one] = await api.searchIds({ query: {} });
  await api.setLabel({ ids: [one], label: 'green' });

  const queue = app.host.service.queue;
  await api.controlQueue({ action: 'pause', target: { type: 'all' } });
  const gone = 9_999_999;
  const { batch, jobIds } = queue.enqueueBatch('Write metadata into 2 files', [
    { kind: 'writeMetadata', payload: { assetId: gone } },
    { kind: 'writeMetadata', payload: { assetId: one } },
  ]);
  queue.pauseJob(jobIds[1]);
  await api.controlQueue({ action: 'resume', target: { type: 'all' } });
  await expect.poll(() => queue.getJob(jobIds[0])?.state).toBe('failed');

  const run = page.locator(`[data-testid="queue-run"][data-batch-id="${batch.id}"]`);
  await expect(run).toHaveAttribute('data-failed', '1');
  await expect(run.getByTestId('queue-run-count')).toHaveText('1 / 2 · 1 failed');
  const failed = run.getByTestId('queue-run-failed');
  const [r, g] = (await failed.evaluate((el) => getComputedStyle(el).color)).match(/\d+/g)!.map(Number);
  expect(r).toBeGreaterThan(g + 60);
  await expect(run).toHaveAttribute('title', /1 failed, 1 to go/);
  expect(await lowContrast(page.locator('header').first()), 'top bar').toEqual([]);
  await shot(page, 'top-runs-failed-1280');
  expect(queue.getJob(jobIds[1])?.state).toBe('paused');
});
