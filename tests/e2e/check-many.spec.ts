import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { shot } from './shots';

// Issue 35, point 7, with a large selection: Check & export lists every photo to fix, a
// hundred at a time ("Show more"), and where the same one-click fix applies to many photos
// ("Remove commas" from their titles) it is offered once for all of them.

const COUNT = 105;
const MANY: TestPhoto[] = Array.from({ length: COUNT }, (_, i) => ({
  file: `pier-${String(i).padStart(3, '0')}.jpg`,
  colour: [40 + (i % 50), 90, 150 - (i % 60)],
  make: 'Canon',
  model: 'Canon EOS R5',
  taken: '2024:05:01 06:10:00',
  width: 2500,
  height: 1700,
}));

test(`Check & export with ${COUNT} photos to fix: all listed a hundred at a time, commas removed from every title at once`, async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree(MANY) });
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = [...(await api.searchIds({ query: {} }))];
  expect(ids).toHaveLength(COUNT);
  await api.editKeywords({ ids, add: ['pier', 'harbour', 'boat', 'dawn', 'sea'] });
  await api.setTitle({ ids, title: 'Pier, boats and nets at dawn' });

  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText(`${COUNT} selected`);
  await page.getByTestId('action-csv').click();
  const dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency').selectOption('adobe');
  await expect(dialog.getByTestId('csv-summary')).toContainText(`0 of ${COUNT} pass Adobe Stock`);

  // A hundred listed, then the rest on asking.
  await expect(dialog.getByTestId('csv-verdict')).toHaveCount(100);
  const more = dialog.getByTestId('csv-show-more');
  await expect(more).toHaveText('Show 5 more');
  await more.click();
  await expect(dialog.getByTestId('csv-verdict')).toHaveCount(COUNT);
  await expect(more).toHaveCount(0);

  // The same fix on every title, offered once.
  const all = dialog.getByTestId('csv-fixall-button');
  await expect(all).toHaveCount(1);
  await expect(all).toHaveText(`Remove commas in ${COUNT} titles`);
  await shot(page, 'agency-check-many');
  expect(await lowContrast(dialog), 'check & export').toEqual([]);
  await all.click();
  await expect(dialog.getByTestId('csv-summary')).toContainText(`${COUNT} of ${COUNT} pass Adobe Stock`);
  await expect(dialog.getByTestId('csv-verdict')).toHaveCount(0);
  for (const id of [ids[0], ids[COUNT - 1]]) expect((await api.getAsset({ id })).title).toBe('Pier boats and nets at dawn');
});

// Issue 35: the problems many photos share that one edit fixes — no category, too few keywords —
// are fixed for all of them at once from the top of the check, each as one undoable edit.
const SIX: TestPhoto[] = MANY.slice(0, 6).map((p, i) => ({ ...p, file: `quay-${i}.jpg` }));

test('Check & export: one category set on every photo that lacks one, the same keywords added to every photo short of them, each one undo step', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1280, height: 800 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree(SIX) });
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = [...(await api.searchIds({ query: {} }))];
  expect(ids).toHaveLength(SIX.length);
  await api.editKeywords({ ids, add: ['pier', 'harbour', 'boat', 'dawn', 'sea'] });
  await api.setCaption({ ids, caption: 'Fishing boats moored at a quiet pier at dawn' });
  // One photo already has its category: it is not among those the bulk fix changes.
  await api.setStockFields({ ids: [ids[0]], categories: { agency: 'shutterstock', values: ['Transportation'] } });

  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText(`${SIX.length} selected`);
  await page.getByTestId('action-csv').click();
  const dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency').selectOption('shutterstock');
  await expect(dialog.getByTestId('csv-summary')).toContainText(`0 of ${SIX.length} pass Shutterstock`);

  const category = dialog.getByTestId('csv-fixall-category');
  await expect(category).toHaveText(/Set category.*on 5 photos/);
  const keywords = dialog.getByTestId('csv-fixall-keywords');
  await expect(keywords.getByTestId('csv-fixall-keywords-add')).toHaveText('Add to 6 photos');
  await expect(keywords.getByTestId('csv-fixall-keywords-add')).toBeDisabled();
  await shot(page, 'agency-check-bulk-1280');
  expect(await lowContrast(dialog), 'check & export, bulk fixes').toEqual([]);

  await category.getByTestId('csv-fixall-category-select').selectOption('Nature');
  await expect(page.getByTestId('toast-info').filter({ hasText: 'Category “Nature” set on 5 photos.' })).toBeVisible();
  await expect(category).toHaveCount(0);
  for (const id of ids.slice(1)) expect((await api.getStockFields({ id })).categories.shutterstock).toEqual(['Nature']);
  expect((await api.getStockFields({ id: ids[0] })).categories.shutterstock).toEqual(['Transportation']);

  await keywords.getByTestId('csv-fixall-keywords-input').fill('boats, mooring');
  await keywords.getByTestId('csv-fixall-keywords-add').click();
  await expect(dialog.getByTestId('csv-summary')).toContainText(`${SIX.length} of ${SIX.length} pass Shutterstock`);
  await expect(dialog.getByTestId('csv-fixall')).toHaveCount(0);
  for (const id of ids) expect((await api.getAsset({ id })).keywords).toEqual(expect.arrayContaining(['boats', 'mooring']));

  // Each bulk fix is one step back.
  expect(await api.undo()).toMatch(/keyword/i);
  for (const id of ids) expect((await api.getAsset({ id })).keywords).not.toContain('mooring');
  expect(await api.undo()).toMatch(/categor/i);
  for (const id of ids.slice(1)) expect((await api.getStockFields({ id })).categories.shutterstock ?? []).toEqual([]);
});

// Issue 35: photos over the agency's keyword maximum each lose different keywords (those past
// the maximum in the photo's own order), listed before anything changes, as one undo step.
test('Check & export: too many keywords trimmed on every photo at once, the removed ones listed first, one undo step', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1280, height: 800 } });
  const { page, api } = app;
  const three = SIX.slice(0, 3).map((p, i) => ({ ...p, file: `jetty-${i}.jpg` }));
  await api.addFolder({ path: await makePhotoTree(three) });
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = [...(await api.searchIds({ query: {} }))];
  expect(ids).toHaveLength(3);
  // Adobe Stock takes at most 49: 50, 51 and 52 keywords, each photo its own.
  const lists = ids.map((id, n) => Array.from({ length: 50 + n }, (_, k) => `p${n}-word-${String(k).padStart(2, '0')}`));
  for (const [n, id] of ids.entries()) await api.setKeywords({ id, keywords: lists[n] });
  await api.setTitle({ ids, title: 'Wooden jetty in the morning mist' });
  await api.setCaption({ ids, caption: 'A wooden jetty reaching into a calm lake in the morning mist' });

  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');
  await page.getByTestId('action-csv').click();
  const dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency').selectOption('adobe');
  await expect(dialog.getByTestId('csv-summary')).toContainText('0 of 3 pass Adobe Stock');

  const trim = dialog.getByTestId('csv-fixall-trim');
  await expect(trim.getByTestId('csv-fixall-trim-apply')).toHaveText('Remove 6 keywords from 3 photos');
  // Which keywords go, photo by photo, before anything changes: the last ones in each photo's order.
  await trim.getByText('Keywords that will be removed').click();
  for (const [n, id] of ids.entries()) {
    await expect(trim.locator(`[data-testid="csv-fixall-trim-photo"][data-asset-id="${id}"]`)).toContainText(lists[n].slice(49).join(', '));
  }
  await shot(page, 'agency-check-trim-1280');
  expect(await lowContrast(dialog), 'check & export, keywords to remove').toEqual([]);

  await trim.getByTestId('csv-fixall-trim-apply').click();
  await expect(page.getByTestId('toast-info').filter({ hasText: 'Removed 6 keywords from 3 photos.' })).toBeVisible();
  await expect(dialog.getByTestId('csv-summary')).toContainText('3 of 3 pass Adobe Stock');
  for (const [n, id] of ids.entries()) expect((await api.getAsset({ id })).keywords).toEqual(lists[n].slice(0, 49));

  // One Undo puts every photo's keywords back.
  expect(await api.undo()).toBe('Undo: remove 6 keywords from 3 photos');
  for (const [n, id] of ids.entries()) expect((await api.getAsset({ id })).keywords).toEqual(lists[n]);
});
