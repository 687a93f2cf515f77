import { mkdirSync } from 'node:fs';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';

// The Activity view names the photo of each job (file name and a small thumbnail), not only
// the kind of request: here for a batch writing labels into two files.
const SCREENS = '.tmp/screens';
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
