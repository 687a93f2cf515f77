import { mkdirSync } from 'node:fs';
import type { Locator } from '@playwright/test';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { painted, shot } from './shots';

// The library at a Lightroom user's standard on a 1440 px window: the bottom toolbar and the
// sidebar's rows fit (nothing clipped), the sidebar's panels fold away and open as they were
// left after a reload, and the filters in use are summarised at the top, each removable.
const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

/** `inner` lies wholly inside `outer` (to the pixel), and is not zero-sized. */
async function inside(inner: Locator, outer: Locator): Promise<void> {
  const a = (await inner.boundingBox())!;
  const b = (await outer.boundingBox())!;
  expect(a.width).toBeGreaterThan(0);
  expect(a.x).toBeGreaterThanOrEqual(Math.floor(b.x));
  expect(a.x + a.width, `${String(inner)} ends inside ${String(outer)}`).toBeLessThanOrEqual(Math.ceil(b.x + b.width));
}

test('1440 px: toolbar and sidebar fit, panels fold and stay folded, filters in use summarised', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  // A selection makes the toolbar as wide as it gets ("N selected").
  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');

  const toolbar = page.locator('footer.toolbar');
  for (const id of ['view-grid', 'action-cull', 'action-keyword', 'action-write', 'action-csv', 'toggle-fold-groups', 'toggle-scores', 'thumb-size']) {
    await inside(page.getByTestId(id), toolbar);
  }
  // The selection summary is read in full, not ellipsized ("N selected" is the point of it).
  const summary = page.getByTestId('selection-summary');
  await expect(summary).toHaveText(`${PHOTOS.length} selected`);
  await inside(summary, toolbar);
  expect(await summary.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  // The slider is usable: dragging it to its right end changes the thumbnail size.
  await page.getByTestId('thumb-size').fill('300');
  await expect(page.getByTestId('thumb-size')).toHaveValue('300');
  const sidebar = page.getByTestId('sidebar');
  for (const id of ['filter-flag-any', 'filter-flag-pick', 'filter-flag-reject', 'filter-flag-unflagged', 'filter-label-none']) {
    await inside(page.getByTestId(id), sidebar);
  }
  await page.screenshot({ path: `${SCREENS}/library-1440.png` });

  // Fold Quality away and open "More filters"; after a reload they are as they were left.
  await page.getByTestId('quality-histogram-toggle').click();
  await page.getByTestId('filters-more-toggle').click();
  await expect(page.getByTestId('filters-more')).toBeVisible();
  // Saved a moment after the last change (one write per burst): wait until it is.
  await expect.poll(async () => (await api.getViewState())['library.filters.more']).toBe(true);
  await page.reload();
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect(page.getByTestId('quality-histogram')).toHaveAttribute('data-open', 'false');
  await expect(page.getByTestId('filters')).toHaveAttribute('data-open', 'true');
  await expect(page.getByTestId('filters-more')).toBeVisible();
  await expect(page.getByTestId('filter-flag-any')).toBeVisible();

  // Filters in use are summarised at the top, and removable there, even with Filters folded.
  await expect(page.getByTestId('filter-summary')).toHaveCount(0);
  await page.getByTestId('filter-rating-1').click();
  await page.getByTestId('filter-kind-image').click();
  await page.getByTestId('filters-toggle').click();
  await expect(page.getByTestId('filter-summary-minRating')).toContainText('≥ ★');
  await expect(page.getByTestId('filter-summary-kinds')).toContainText('Photos');
  await page.screenshot({ path: `${SCREENS}/library-sidebar-folded.png` });
  await page.getByTestId('filter-summary-minRating').getByRole('button').click();
  await expect(page.getByTestId('filter-summary-minRating')).toHaveCount(0);
  await page.getByTestId('filter-summary-clear').click();
  await expect(page.getByTestId('filter-summary')).toHaveCount(0);
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
});

// Issue 35: at 1280 px with both side panels open the toolbar had no room for all its controls:
// the slider's end was cut and "N selected" shrank to "1 …". What does not fit folds into a
// More menu (»), as behind Lightroom's toolbar chevron; every control left in the row is whole.
for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]) {
  test(`${viewport.width} px, both panels open: every toolbar control whole, the rest in its More menu`, async ({ launchApp }) => {
    const app = await launchApp({ viewport });
    const { page, api } = app;
    await api.addFolder({ path: await makePhotoTree() });
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('inspector')).toBeVisible();
    await page.getByTestId('grid-cell').first().click();
    await page.keyboard.press('Control+a');

    const toolbar = page.locator('footer.toolbar');
    const summary = page.getByTestId('selection-summary');
    await expect(summary).toHaveText(`${PHOTOS.length} selected`);
    await painted(page);
    for (const id of ['view-grid', 'view-loupe', 'action-cull', 'action-keyword', 'action-caption', 'action-analyse', 'action-write', 'action-csv', 'selection-summary', 'thumb-size']) {
      await inside(page.getByTestId(id), toolbar);
    }
    // Read in full, not "1 …".
    expect(await summary.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // No control overlaps the next.
    const boxes = await toolbar.evaluate((el) => [...el.children].map((c) => c.getBoundingClientRect()).filter((r) => r.width > 0).map((r) => [r.left, r.right]));
    for (let i = 1; i < boxes.length; i++) expect(boxes[i][0], `toolbar control ${i} starts after the one before`).toBeGreaterThanOrEqual(boxes[i - 1][1] - 0.5);
    await shot(page, `toolbar-both-panels-${viewport.width}`, toolbar);

    // Fold and Scores: in the row when it has room, else in the More menu; they work from either.
    const more = page.getByTestId('toolbar-more');
    if (viewport.width === 1280) {
      await inside(more, toolbar);
      await more.click();
      await expect(page.getByTestId('toolbar-more-menu')).toBeVisible();
      await shot(page, `toolbar-more-${viewport.width}`);
    } else {
      await expect(more).toHaveCount(0);
    }
    await page.getByTestId('toggle-scores').check();
    await expect(page.getByTestId('toggle-scores')).toBeChecked();
  });
}
