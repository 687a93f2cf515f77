import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { fakeBackend } from './fake-backend';
import { openRenderer } from './renderer';

// The grid at 100,000 assets, against a synthetic Api: only what is on screen is in the DOM,
// only the pages in view are fetched (never the whole list), and selection works across
// pages that were never loaded. (The real catalogue's speed is the benchmark's business.)

const COUNT = 100_000;

test('a 100k library: virtualised grid, lazy pages, select all and shift-range across unloaded pages', async ({ browser }) => {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-scale-'));
  const thumbFile = join(root, 'thumb.jpg');
  await sharp({ create: { width: 320, height: 213, channels: 3, background: { r: 90, g: 110, b: 130 } } }).jpeg().toFile(thumbFile);
  const backend = fakeBackend({ count: COUNT, thumbFile, mediaRoot: root });
  const renderer = await openRenderer(browser, backend);
  const { page } = renderer;
  try {
    await expect(page.getByTestId('result-count')).toHaveText('100,000 photos');
    const cells = page.getByTestId('grid-cell');
    await expect(cells.first()).toBeVisible();
    expect(await cells.count()).toBeLessThan(200);

    const searches = () => backend.calls.filter((c) => c.method === 'search').map((c) => (c.args as { page: { limit: number } }).page.limit);
    // Jump to the middle and to the end: the cells there appear, the DOM stays small.
    const grid = page.getByTestId('grid');
    await grid.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await expect(page.locator('[data-testid="grid-cell"][data-index="50000"]')).toBeAttached();
    await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = page.locator(`[data-testid="grid-cell"][data-index="${COUNT - 1}"]`);
    await expect(last).toBeVisible();
    expect(await cells.count()).toBeLessThan(200);
    const limits = searches();
    expect(Math.max(...limits)).toBeLessThanOrEqual(200);
    expect(limits.reduce((a, b) => a + b, 0)).toBeLessThan(5_000);

    // Shift+click from the last cell back to the first: the range spans pages never fetched.
    await last.click();
    await grid.evaluate((el) => (el.scrollTop = 0));
    await page.locator('[data-testid="grid-cell"][data-index="0"]').click({ modifiers: ['Shift'] });
    await expect(page.getByTestId('selected-count')).toHaveText('100,000 selected');

    await page.locator('[data-testid="grid-cell"][data-index="3"]').click();
    await expect(page.getByTestId('selection-summary')).toHaveText('1 selected');
    await page.keyboard.press('ControlOrMeta+a');
    await expect(page.getByTestId('selection-summary')).toHaveText('100,000 selected');
  } finally {
    await renderer.close();
  }
});
