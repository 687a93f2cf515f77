import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 35, point 5: the filters in Lightroom's shape. A top row of the attributes a culler works
// by (flag · stars · label · type); everything else folded under "More filters", open or folded
// as the user left it, also after a restart, saying how many of its filters are in use; one
// Quality section whose classes are words; placeholders readable (4.5:1) and not cut off.

const viewState = (dataDir: string): Record<string, unknown> => {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).viewState as Record<string, unknown>;
  } catch {
    return {}; // not written yet
  }
};

/** Placeholders wider than the room their field leaves them (what read "ma›" and "fron"). */
async function clippedPlaceholders(root: Locator): Promise<string[]> {
  return root.evaluate((top) => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    const out: string[] = [];
    for (const el of top.querySelectorAll('input')) {
      if (!el.placeholder || el.value || el.getClientRects().length === 0) continue;
      const s = getComputedStyle(el);
      canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      if (canvas.measureText(el.placeholder).width > room) out.push(`${el.placeholder} (${el.getAttribute('data-testid') ?? el.getAttribute('aria-label')})`);
    }
    return out;
  });
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
]) {
  test(`${viewport.width} px: a top row, the rest under More (kept across a restart), quality classes in words`, async ({ launchApp }) => {
    const first = await launchApp({ viewport });
    const { page, api } = first;
    await api.addFolder({ path: await makePhotoTree() });
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
    const filters = page.getByTestId('filters');
    const sidebar = page.getByTestId('sidebar');

    // The top row, in Lightroom's order; the rest folded away.
    await expect(filters.getByTestId('filter-top').locator('.filter-label')).toHaveText(['Flag', 'Stars', 'Label', 'Type']);
    await expect(page.getByTestId('filters-more')).toHaveCount(0);
    await expect(page.getByTestId('filter-camera')).toHaveCount(0);
    await expect(page.getByTestId('analysis-filters')).toHaveCount(0);
    // One quality section, its classes spelled out.
    await expect(page.getByRole('heading', { name: 'Quality' })).toHaveCount(1);
    await expect(page.getByTestId('quality-histogram').getByTestId('quality-filter')).toBeVisible();
    await expect(page.locator('[data-testid^="filter-ugc-"]')).toHaveText(['Very bad', 'Poor', 'Normal', 'Good', 'Excellent']);
    expect(await lowContrast(sidebar)).toEqual([]);
    expect(await clippedPlaceholders(sidebar)).toEqual([]);
    await shot(page, `filters-top-${viewport.width}`);

    // The flag filter narrows the grid from the top row.
    const one = Number(await page.getByTestId('grid-cell').first().getAttribute('data-asset-id'));
    await api.setFlag({ ids: [one], flag: 'pick' });
    await filters.getByTestId('filter-flag-pick').click();
    await expect(page.getByTestId('grid-cell')).toHaveCount(1);
    await filters.getByTestId('filter-flag-any').click();
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

    // More: every other filter, readable and not clipped.
    await page.getByTestId('filters-more-toggle').click();
    await expect(page.getByTestId('filters-more')).toBeVisible();
    await expect(page.getByTestId('analysis-filters')).toBeVisible();
    await page.getByTestId('filter-iso-min').fill('800');
    expect(await lowContrast(sidebar)).toEqual([]);
    expect(await clippedPlaceholders(sidebar)).toEqual([]);
    await shot(page, `filters-more-${viewport.width}`);

    // Folded again, the fold says a filter is in use under it.
    await page.getByTestId('filters-more-toggle').click();
    await expect(page.getByTestId('filters-more')).toHaveCount(0);
    await expect(page.getByTestId('filters-more-count')).toHaveText('1 in use');
    await page.getByTestId('filters-more-toggle').click();
    await expect.poll(() => viewState(first.dataDir)['library.filters.more']).toBe(true);

    // A restart finds More open, as it was left.
    await first.close();
    const second = await launchApp({ dataDir: first.dataDir, viewport });
    await expect(second.page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(second.page.getByTestId('filters-more')).toBeVisible();
    await expect(second.page.getByTestId('filter-iso-min')).toHaveValue('800');
  });
}
