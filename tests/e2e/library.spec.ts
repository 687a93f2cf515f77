import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test, type AppHandle } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { SCREENS } from './shots';

// The library, end to end: the built renderer driving the real Api over real files.
// Grid order is the default sort, capture date newest first:
const BY_DATE_DESC = ['city-night.jpg', 'beach-sunset.jpg', 'forest-path.jpg', 'mountain-lake.jpg', 'snow-field.jpg', 'red-door.jpg'];

const cells = (page: Page) => page.getByTestId('grid-cell');
const cell = (page: Page, name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);

/** Thumbnails that actually decoded (not just <img> elements). */
function loadedThumbs(page: Page): Promise<number> {
  return page.$$eval('[data-testid="thumb-img"]', (imgs) => (imgs as HTMLImageElement[]).filter((i) => i.complete && i.naturalWidth > 0).length);
}

/** Adds the folder through the sidebar's path field and waits until the scan has shown every photo. */
async function addFolderViaUi(app: AppHandle, root: string, expected = PHOTOS.length): Promise<void> {
  const { page } = app;
  // The harness has no native folder dialog (pickFolder answers null): the path field appears.
  if (!(await page.getByTestId('add-folder-path').isVisible())) await page.getByTestId('add-folder').click();
  await page.getByTestId('add-folder-path').fill(root);
  await page.getByTestId('add-folder-submit').click();
  await expect(page.locator(`[data-testid="folder-item"][data-folder-path="${root}"]`)).toBeVisible();
  await expect(page.getByTestId('result-count')).toHaveAttribute('data-total', String(expected));
  await expect(cells(page)).toHaveCount(expected);
  await expect.poll(() => loadedThumbs(page)).toBe(expected);
}

async function assetIdByName(app: AppHandle, name: string): Promise<number> {
  const res = await app.api.search({ query: { text: name.replace(/\.jpg$/, '') }, page: { offset: 0, limit: 10 } });
  const hit = res.items.find((a) => a.name === name);
  if (!hit) throw new Error(`no asset named ${name}`);
  return hit.id;
}

test('empty library explains what to do; adding a folder by path shows real thumbnails', async ({ launchApp }) => {
  const app = await launchApp();
  const { page } = app;
  await expect(page.getByTestId('empty-no-folders')).toContainText('Add a folder of photos to get started');
  await page.screenshot({ path: `${SCREENS}/empty.png` });

  const root = await makePhotoTree();
  await addFolderViaUi(app, root);
  await expect(page.getByTestId('result-count')).toHaveText('6 photos');
  await expect(page.getByTestId('folder-count')).toHaveText('6');
  await expect.poll(() => cells(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(BY_DATE_DESC);
  await page.screenshot({ path: `${SCREENS}/grid.png` });
});

test('search and filters narrow the grid; no results offers to clear them', async ({ launchApp }) => {
  const app = await launchApp();
  const { page } = app;
  await addFolderViaUi(app, await makePhotoTree());

  await page.getByTestId('search').fill('beach');
  await expect(cells(page)).toHaveCount(1);
  await expect(cell(page, 'beach-sunset.jpg')).toBeVisible();
  await page.getByTestId('search').fill('');
  await expect(cells(page)).toHaveCount(6);

  // Camera, from the facets (under More): the menu offers each camera once, with its count.
  await page.getByTestId('filters-more-toggle').click();
  await expect(page.getByTestId('filter-camera').locator('option', { hasText: 'Canon EOS R5' })).toHaveText('Canon EOS R5 (3)');
  await page.getByTestId('filter-camera').selectOption('Canon EOS R5');
  await expect(cells(page)).toHaveCount(3);
  await page.getByTestId('filter-camera').selectOption('');
  await expect(cells(page)).toHaveCount(6);

  // Rating: two photos rated 4 through the Api; the grid hears about it and the filter narrows.
  const ids = [await assetIdByName(app, 'red-door.jpg'), await assetIdByName(app, 'forest-path.jpg')];
  await app.api.setRating({ ids, rating: 4 });
  await expect(cell(page, 'red-door.jpg').getByTestId('cell-stars')).toHaveAttribute('data-rating', '4');
  await page.getByTestId('filter-rating-4').click();
  await expect(cells(page)).toHaveCount(2);

  // Media type: there are no videos, so nothing matches — and the empty state says how out.
  await page.getByTestId('filter-kind-video').click();
  await expect(page.getByTestId('empty-no-results')).toContainText('No photos match');
  await page.getByTestId('empty-clear-filters').click();
  await expect(cells(page)).toHaveCount(6);
});

test('multi-select, then keywords and caption edited in the inspector survive a reload and a restart', async ({ launchApp }) => {
  const first = await launchApp();
  const { page } = first;
  await addFolderViaUi(first, await makePhotoTree());

  // Click, Shift+click a range, Ctrl+click to add and to remove.
  await cells(page).nth(0).click();
  await cells(page).nth(2).click({ modifiers: ['Shift'] });
  await expect(page.locator('[data-testid="grid-cell"][data-selected="true"]')).toHaveCount(3);
  await cells(page).nth(4).click({ modifiers: ['ControlOrMeta'] });
  await expect(page.getByTestId('selected-count')).toHaveText('4 selected');
  await cells(page).nth(0).click({ modifiers: ['ControlOrMeta'] });
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');
  const chosen = ['beach-sunset.jpg', 'forest-path.jpg', 'snow-field.jpg'];
  for (const name of chosen) await expect(cell(page, name)).toHaveAttribute('data-selected', 'true');

  // A keyword for all three at once.
  await page.getByTestId('keyword-input').fill('holiday');
  await page.getByTestId('keyword-input').press('Enter');
  await expect(page.getByTestId('inspector-multi').getByTestId('keyword-chip')).toHaveText(['holiday×']);
  for (const name of chosen) {
    expect((await first.api.getAsset({ id: await assetIdByName(first, name) })).keywords).toEqual(['holiday']);
  }
  await page.screenshot({ path: `${SCREENS}/multi-select.png` });

  // One photo: autocomplete offers the library's keyword; add another by Enter, remove it by ×.
  await cell(page, 'red-door.jpg').click();
  await expect(page.getByTestId('inspector-name')).toHaveText('red-door.jpg');
  const input = page.getByTestId('keyword-input');
  await input.fill('hol');
  await expect(page.getByTestId('keyword-suggestion')).toHaveText([/holiday/]);
  await input.press('ArrowDown');
  await input.press('Enter');
  await input.fill('door');
  await input.press('Enter');
  await input.fill('temporary');
  await input.press('Enter');
  const chips = page.getByTestId('inspector-single').getByTestId('keyword-chip');
  await expect(chips).toHaveText(['holiday×', 'door×', 'temporary×']);
  await page.locator('[data-testid="keyword-chip"][data-keyword="temporary"]').getByTestId('keyword-remove').click();
  await expect(chips).toHaveText(['holiday×', 'door×']);

  // Caption: "Saved" appears only once the Api has committed it.
  await page.getByTestId('caption').fill('A red door in the old town');
  await page.getByTestId('caption').press('Enter');
  await expect(page.getByTestId('caption-status')).toHaveText('Saved');
  const redId = await assetIdByName(first, 'red-door.jpg');
  const stored = await first.api.getAsset({ id: redId });
  expect(stored.caption).toBe('A red door in the old town');
  expect(stored.keywords).toEqual(['holiday', 'door']);

  const expectRedDoorEdits = async (p: Page) => {
    await cell(p, 'red-door.jpg').click();
    await expect(p.getByTestId('inspector-single').getByTestId('keyword-chip')).toHaveText(['holiday×', 'door×']);
    await expect(p.getByTestId('caption')).toHaveValue('A red door in the old town');
    await cell(p, 'snow-field.jpg').click();
    await expect(p.getByTestId('inspector-single').getByTestId('keyword-chip')).toHaveText(['holiday×']);
  };

  // Reload the page: state lives in main, so everything is still there.
  await page.reload();
  await expect(cells(page)).toHaveCount(6);
  await expectRedDoorEdits(page);

  // Restart: close the library completely and open the same data dir again.
  await first.close();
  const second = await launchApp({ dataDir: first.dataDir });
  await expect(cells(second.page)).toHaveCount(6);
  await expectRedDoorEdits(second.page);
  await second.page.getByTestId('search').fill('holiday');
  await expect(cells(second.page)).toHaveCount(4);
});

test('keyboard: arrows, 0–5 stars, undo, select all, loupe', async ({ launchApp }) => {
  const app = await launchApp();
  const { page } = app;
  await addFolderViaUi(app, await makePhotoTree());

  await cells(page).nth(0).click();
  await page.keyboard.press('ArrowRight');
  await expect(cells(page).nth(1)).toHaveClass(/is-focused/);
  await expect(page.getByTestId('inspector-name')).toHaveText(BY_DATE_DESC[1]);
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');

  // Stars on the selection, then undo.
  await page.keyboard.press('3');
  for (const name of BY_DATE_DESC.slice(1, 3)) {
    await expect(cell(page, name).getByTestId('cell-stars')).toHaveAttribute('data-rating', '3');
  }
  await page.keyboard.press('ControlOrMeta+z');
  await expect(page.getByTestId('toast-info').last()).toContainText(/undo/i);
  for (const name of BY_DATE_DESC.slice(1, 3)) await expect(cell(page, name).getByTestId('cell-stars')).toHaveCount(0);
  const ids = await Promise.all(BY_DATE_DESC.slice(1, 3).map((n) => assetIdByName(app, n)));
  for (const id of ids) expect((await app.api.getAsset({ id })).rating).toBe(0);

  await page.keyboard.press('ControlOrMeta+a');
  await expect(page.getByTestId('selection-summary')).toHaveText('6 selected');

  // Loupe: E opens the focused photo large, arrows step, Esc returns to the grid.
  await cells(page).nth(0).click();
  await page.keyboard.press('e');
  const img = page.getByTestId('loupe-img');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  const firstId = await page.getByTestId('loupe').getAttribute('data-asset-id');
  await page.screenshot({ path: `${SCREENS}/loupe.png` });
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('loupe')).not.toHaveAttribute('data-asset-id', firstId!);
  await expect(page.getByTestId('inspector-name')).toHaveText(BY_DATE_DESC[1]);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('grid')).toBeVisible();
});

test('a folder that is missing is refused with a readable message', async ({ launchApp }) => {
  const app = await launchApp();
  await app.page.getByTestId('add-folder').click();
  await app.page.getByTestId('add-folder-path').fill(join('/nonexistent', 'photos'));
  await app.page.getByTestId('add-folder-submit').click();
  const toast = app.page.getByTestId('toast-error');
  await expect(toast).toBeVisible();
  await expect(toast).not.toContainText(/Error:|at .*\.ts/);
});

test('a folder whose drive is gone shows offline and stays browsable; Relink brings it back; Remove never touches files', async ({ launchApp }) => {
  const app = await launchApp();
  const { page } = app;
  const root = await makePhotoTree();
  await addFolderViaUi(app, root);

  // The "drive" goes away: the folder is offline after a rescan, its photos are still shown.
  const moved = `${root}-moved`;
  renameSync(root, moved);
  await page.getByTestId('rescan-all').click();
  const item = page.getByTestId('folder-item');
  await expect(item).toHaveAttribute('data-online', 'false');
  await expect(item.getByTestId('folder-offline')).toHaveAttribute('title', /Drive or folder not available/);
  await expect(cells(page)).toHaveCount(PHOTOS.length);
  await expect.poll(() => loadedThumbs(page)).toBe(PHOTOS.length);

  // Relink to where it went: online again, nothing lost.
  await item.hover();
  await item.getByTestId('folder-relink').click();
  await page.getByTestId('relink-path').fill(moved);
  await page.getByTestId('relink-submit').click();
  await expect(item).toHaveAttribute('data-online', 'true');
  await expect(item).toHaveAttribute('data-folder-path', moved);
  await expect(cells(page)).toHaveCount(PHOTOS.length);

  // Remove: the dialog says files are never touched, and they are not.
  await item.hover();
  await item.getByTestId('folder-remove').click();
  await expect(page.getByTestId('remove-dialog')).toContainText('never touched');
  await page.getByTestId('dialog-confirm').click();
  await expect(page.getByTestId('empty-no-folders')).toBeVisible();
  for (const p of PHOTOS) expect(existsSync(join(moved, p.file))).toBe(true);
});
