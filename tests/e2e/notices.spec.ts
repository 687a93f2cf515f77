import type { Locator } from '@playwright/test';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 35, point 3: notices that behave. At most two at once, in a strip of their own that
// covers none of the working surface, cleared when the view changes, written as what was done,
// with a real Undo button where undo applies.

async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const x = await a.boundingBox();
  const y = await b.boundingBox();
  if (!x || !y) return false;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

for (const viewport of [{ width: 1440, height: 900 }, { width: 1280, height: 800 }]) {
  test(`notices at ${viewport.width}×${viewport.height}: two at most, covering nothing, past tense, Undo, cleared with the view`, async ({ launchApp }) => {
    const app = await launchApp({ viewport });
    const { page, api } = app;
    await api.addFolder({ path: await makePhotoTree() });
    const cells = page.getByTestId('grid-cell');
    await expect(cells).toHaveCount(PHOTOS.length);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
    const portfolio = await api.createCollection({ name: 'Portfolio', kind: 'manual', parentId: null });
    const all = [...(await api.searchIds({ query: {} }))];
    await api.addToCollection({ id: portfolio.id, ids: all.slice(0, 2) });
    const row = page.locator('[data-testid="collection-item"][data-name="Portfolio"]').getByTestId('collection-row');
    await expect(row).toBeVisible();

    // In the collection, Delete takes a photo out: said as done, with an Undo button that works.
    await row.click();
    await expect(cells).toHaveCount(2);
    await cells.first().click();
    await page.keyboard.press('Delete');
    await expect(cells).toHaveCount(1);
    const removed = page.getByTestId('toast-info').last();
    await expect(removed).toContainText('Removed 1 photo from “Portfolio”. The files were not touched.');
    await shot(page, `notices-undo-${viewport.width}`);
    await removed.getByTestId('toast-undo').click();
    await expect(cells).toHaveCount(2);
    await expect.poll(async () => (await api.searchIds({ query: { collectionId: portfolio.id } })).length).toBe(2);
    await expect(page.getByTestId('toast-info').last()).toHaveText(/^Undone: removed 1 photo/);

    // Three notices in a row: only the last two stay.
    await page.keyboard.press('b');
    await expect(page.getByTestId('toast-info').last()).toContainText('Pick a target collection first');
    await page.keyboard.press('s');
    await expect(page.getByTestId('toast-info').last()).toContainText('Similar groups are not folded');
    await page.keyboard.press('Escape');
    await page.keyboard.press('F2');
    await expect(page.getByTestId('toast-info').last()).toContainText('Select the photos to rename first');
    const notices = page.getByTestId('notices');
    await expect(notices).toHaveAttribute('data-count', '2');
    await expect(page.locator('[data-testid="notices"] .toast')).toHaveCount(2);

    // They cover no working surface: not the grid, the panels, the toolbar or the top bar.
    for (const surface of [page.getByTestId('grid'), page.getByTestId('sidebar'), page.getByTestId('inspector'), page.locator('footer.toolbar'), page.locator('header.topbar')]) {
      expect(await overlaps(notices, surface)).toBe(false);
    }
    const grid = (await page.getByTestId('grid').boundingBox())!;
    const strip = (await notices.boundingBox())!;
    expect(strip.y).toBeGreaterThanOrEqual(grid.y + grid.height);
    await shot(page, `notices-two-${viewport.width}`);

    // Another view clears them.
    await cells.first().click();
    await page.keyboard.press('e');
    await expect(page.getByTestId('loupe')).toBeVisible();
    await expect(notices).toHaveAttribute('data-count', '0');
    await expect(notices).toBeHidden();
  });
}
