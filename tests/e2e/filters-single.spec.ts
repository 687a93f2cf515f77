import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 35, point 5 (in part): the filters narrow the grid; in the single-photo views (loupe,
// culling) they are put away, and they come back as they were with the grid.

test('filters are hidden in the loupe and in culling, and back with the grid as they were', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect(page.getByTestId('filters')).toBeVisible();
  await page.getByTestId('filter-label-none').click();
  await expect(page.getByTestId('filter-summary')).toBeVisible();

  await page.getByTestId('grid-cell').first().dblclick();
  await expect(page.getByTestId('loupe')).toBeVisible();
  await expect(page.getByTestId('filters')).toHaveCount(0);
  await expect(page.getByTestId('quality-histogram')).toHaveCount(0);
  await expect(page.getByTestId('analysis-filters')).toHaveCount(0);
  // What is in use is still said, and removable, at the top.
  await expect(page.getByTestId('filter-summary')).toBeVisible();
  await shot(page, 'filters-hidden-loupe');

  await page.keyboard.press('g');
  await expect(page.getByTestId('filters')).toBeVisible();
  await page.getByTestId('action-cull').click();
  await expect(page.getByTestId('cull')).toBeVisible();
  await expect(page.getByTestId('filters')).toHaveCount(0);
  await page.getByTestId('cull-exit').click();
  await expect(page.getByTestId('filters')).toBeVisible();
  await expect(page.getByTestId('filter-summary')).toBeVisible();
});
