import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CredentialStore } from '../../src-main/credentials';
import { hashFile } from '../../src-main/library/hash';
import { startSimulator } from '../simulator/index';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';

// The Activity view names the photo of each job (file name and a small thumbnail), not only
// the kind of request: here for a batch writing labels into two files.
const SCREENS = '.tmp/screens';
const CLIENT_ID = 'e2e-activity';
const SECRET = `s3cret-${randomUUID()}`;
mkdirSync(SCREENS, { recursive: true });

test('activity: each job shows the file name and a thumbnail of its photo', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  const all = await api.search({ query: { sort: 'name' }, page: { offset: 0, limit: 10 } });
  const two = all.items.filter((a) => a.name === 'beach-sunset.jpg' || a.name === 'red-door.jpg').map((a) => a.id);
  await api.setLabel({ ids: two, label: 'yellow' });
  const written = await api.writeMetadata({ ids: two });
  expect(written.map((r) => r.status)).toEqual(['written', 'written']);

  await page.getByTestId('nav-activity').click();
  const batch = page.getByTestId('batch-row').filter({ hasText: 'Write metadata into 2 files' });
  await batch.getByTestId('batch-toggle').click();
  const names = batch.getByTestId('job-asset-name');
  await expect(names).toHaveCount(2);
  expect((await names.allTextContents()).sort()).toEqual(['beach-sunset.jpg', 'red-door.jpg']);
  // The thumbnails are real images that loaded.
  const thumbs = batch.getByTestId('job-thumb');
  await expect(thumbs).toHaveCount(2);
  await expect.poll(() => thumbs.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
  await page.screenshot({ path: `${SCREENS}/activity-photos.png` });
});

// Issue 35: a failed job reads in full and can be acted on: its photo, the whole message, how
// many tries, Show (in the library) and Retry; the batch's bar in proportion, failures in red.
// A real failure: a damaged file sent for keywords to the loopback service simulator.
test('activity: a failed job shows its photo, the whole message and tries, Show and Retry; the bar is in proportion', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }] });
  try {
    const app = await launchApp({ viewport: { width: 1440, height: 900 }, api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) } });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    const root = await makePhotoTree();
    const broken = join(root, 'damaged.jpg');
    writeFileSync(broken, Buffer.from('this is not a JPEG at all'));
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length + 1);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
    const all = await api.search({ query: { sort: 'name' }, page: { offset: 0, limit: 20 } });
    const good = all.items.find((a) => a.name === 'beach-sunset.jpg')!;
    const bad = all.items.find((a) => a.name === 'damaged.jpg')!;
    const goodFile = join(root, 'beach-sunset.jpg');
    const queue = app.host.service.queue;
    const { batch: made } = queue.enqueueBatch('Keyword 2 photos', [
      { kind: 'analyze', payload: { file: goodFile, contentHash: await hashFile(goodFile), endpoint: 'keywords', params: {}, assetId: good.id } },
      { kind: 'analyze', payload: { file: broken, contentHash: await hashFile(broken), endpoint: 'keywords', params: {}, assetId: bad.id } },
    ]);
    // A job on a file that is no photo of the library (as a creative upload or a file given on
    // the command line): it fails the same way, and its row says it has no photo to show.
    const { batch: loose } = queue.enqueueBatch('Keyword 1 file', [
      { kind: 'analyze', payload: { file: broken, contentHash: await hashFile(broken), endpoint: 'keywords', params: {} } },
    ]);
    await queue.waitForIdle();

    await page.getByTestId('nav-activity').click();
    const batch = page.locator(`[data-testid="batch-row"][data-batch-id="${made.id}"]`);
    await expect(batch.getByTestId('batch-failed')).toHaveText('1 failed');
    // The bar: half done, half failed in red, not one colour for the whole.
    const failedBar = batch.getByTestId('batch-bar-failed');
    await expect.poll(() => failedBar.evaluate((el) => Math.round((el.getBoundingClientRect().width / el.parentElement!.getBoundingClientRect().width) * 100))).toBe(50);
    const [r, g] = (await failedBar.evaluate((el) => getComputedStyle(el).backgroundColor)).match(/\d+/g)!.map(Number);
    expect(r).toBeGreaterThan(g + 60);

    await batch.getByTestId('batch-toggle').click();
    const failed = batch.locator('[data-testid="job-row"][data-state="failed"]');
    await expect(failed.getByTestId('job-asset-name')).toHaveText('damaged.jpg');
    const message = failed.getByTestId('job-message');
    await expect(message).not.toBeEmpty();
    // In a photographer's words, not the image library's ("Input file contains unsupported image format").
    await expect(message).toContainText('The picture could not be read: the file may be damaged or not really a picture.');
    // The whole message is shown, not cut.
    expect(await message.evaluate((el) => el.scrollWidth <= el.clientWidth && !/…$/.test((el.textContent ?? '').trim()))).toBe(true);
    // Tries: how many times it was sent (this one failed before it could be: none, said as 0).
    await expect(failed.getByTestId('job-tries')).toHaveText(/^\d+$/);
    await expect(failed.getByTestId('job-retry')).toBeVisible();
    // Show and Retry side by side, both inside the jobs' box (Retry was cut off at its edge).
    const jobsBox = (await batch.getByTestId('batch-jobs').boundingBox())!;
    const retryBox = (await failed.getByTestId('job-retry').boundingBox())!;
    expect(retryBox.x + retryBox.width).toBeLessThanOrEqual(jobsBox.x + jobsBox.width);
    await page.screenshot({ path: `${SCREENS}/activity-failed.png` });

    // The job with no photo: no thumbnail and no Show, but its whole message, tries and Retry.
    const looseRow = page.locator(`[data-testid="batch-row"][data-batch-id="${loose.id}"]`);
    await expect(looseRow.getByTestId('batch-failed')).toHaveText('1 failed');
    await expect(looseRow.getByTestId('batch-count')).toHaveText('0 / 1');
    await expect.poll(() => looseRow.getByTestId('batch-bar-failed').evaluate((el) => Math.round((el.getBoundingClientRect().width / el.parentElement!.getBoundingClientRect().width) * 100))).toBe(100);
    await looseRow.getByTestId('batch-toggle').click();
    const lone = looseRow.locator('[data-testid="job-row"][data-state="failed"]');
    await expect(lone).toHaveCount(1);
    await expect(lone.getByTestId('job-no-asset')).toHaveText('No library photo');
    await expect(lone.getByTestId('job-thumb')).toHaveCount(0);
    await expect(lone.getByTestId('job-show')).toHaveCount(0);
    const loneMessage = lone.getByTestId('job-message');
    await expect(loneMessage).toHaveText(((await failed.getByTestId('job-message').textContent()) ?? '').trim());
    expect(await loneMessage.evaluate((el) => el.scrollWidth <= el.clientWidth && !/…$/.test((el.textContent ?? '').trim()))).toBe(true);
    await expect(lone.getByTestId('job-tries')).toHaveText('0');
    await expect(lone.getByTestId('job-retry')).toBeVisible();
    await lone.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/activity-failed-no-photo.png` });

    // Show: the library, with that photo selected and named in the panel.
    await failed.getByTestId('job-show').click();
    await expect(page.getByTestId('inspector-name')).toHaveText('damaged.jpg');
  } finally {
    await sim.close();
  }
});
