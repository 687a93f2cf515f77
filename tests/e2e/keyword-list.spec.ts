import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// A Lightroom keyword list imported from the keyword list panel: its hierarchy and synonyms
// show in the list, a keyword not included on export shows as [name], a photo tagged with a
// keyword from it is found, and the list exported from the app is the same bytes. Issue 35,
// point 8: Lightroom's habits — the box assigns the keyword to the selected photos (a dash when
// some have it), merge and delete in the row's menu, Import/Export in the panel's menu.

const LIST = ['Animals', '\tMammals', '\t\tCat', '\t\t\t{Kitty}', '\t\t\t{Felis catus}', '\t\tDog', '[Workflow]', '\t[To edit]', ''].join('\n');

test('keyword list: import a Lightroom list, see its synonyms, export it back', async ({ launchApp }) => {
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-kwlist-e2e-'));
  const saveAs = join(dir, 'Keywords.txt');
  const app = await launchApp({ api: { pickSavePath: async () => saveAs } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

  // Saved by Lightroom on Windows: a BOM and CRLF line ends.
  const file = join(dir, 'Lightroom Keywords.txt');
  writeFileSync(file, '\ufeff' + LIST.replace(/\n/g, '\r\n'), 'utf8');
  const list = page.getByTestId('keyword-list');
  await list.getByTestId('keyword-list-file').setInputFiles(file);
  await expect(page.getByTestId('toast-info')).toContainText('6 keywords added, 2 synonyms added, 0 already in the library');

  const row = (k: string) => list.locator(`[data-testid="library-keyword"][data-keyword="${k}"]`);
  await expect(row('Animals|Mammals|Cat').getByTestId('library-keyword-synonyms')).toHaveText('= Kitty, Felis catus');
  await expect(row('Animals|Mammals|Cat').locator('.kwl-count')).toHaveText('0');
  await expect(row('Animals|Mammals|Dog')).toBeVisible();
  await expect(row('Workflow').locator('.kwl-name')).toHaveText('Workflownot exported');
  await expect(row('Workflow').getByTestId('library-keyword-not-exported')).toBeVisible();
  await list.scrollIntoViewIfNeeded();
  await shot(page, 'keyword-list-synonyms', page.getByTestId('sidebar'));

  // A photo gets the keyword; the list counts it and filters the grid by it.
  const { items } = await api.search({ query: {}, page: { offset: 0, limit: 1 } });
  await api.editKeywords({ ids: [items[0].id], add: ['Animals|Mammals|Cat'] });
  await expect(row('Animals|Mammals|Cat').locator('.kwl-count')).toHaveText('1');
  await row('Animals|Mammals|Cat').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(1);

  // Export from the panel: exactly what Lightroom would read (UTF-8, LF, no BOM).
  await list.getByTestId('keyword-list-menu').click();
  await page.getByTestId('keyword-list-export').click();
  await expect(page.getByTestId('toast-info').last()).toContainText(`Saved 8 lines to ${saveAs}`);
  expect(readFileSync(saveAs, 'utf8')).toBe(LIST);

  // Settings › Keywords: write synonyms into files with their keyword (off until chosen). The
  // tagged photo then has a pending write that puts Kitty and Felis catus beside Cat.
  await expect.poll(async () => (await api.syncState({ id: items[0].id })).status).toBe('unsaved');
  await page.getByTestId('nav-settings').click();
  const kwSettings = page.getByTestId('settings-keywords');
  await expect(kwSettings.getByTestId('kw-export-synonyms')).not.toBeChecked();
  await kwSettings.getByTestId('kw-export-synonyms').check();
  await kwSettings.getByTestId('kw-settings-save').click();
  await expect(kwSettings.getByTestId('kw-settings-saved')).toBeVisible();
  expect((await api.getKeywordSettings()).exportSynonyms).toBe(true);
  const preview = await api.previewWrite({ ids: [items[0].id] });
  expect(preview.changes.find((c) => c.field === 'keywords')?.libraryValue).toEqual(['Animals|Mammals|Cat', 'Kitty', 'Felis catus']);
});

/** Two boxes overlap (the header's title and its buttons collided). */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const r = (await a.boundingBox())!;
  const q = (await b.boundingBox())!;
  return r.x < q.x + q.width && q.x < r.x + r.width && r.y < q.y + q.height && q.y < r.y + r.height;
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
]) {
  test(`${viewport.width} px: the box assigns to the selected photos, merge and delete from the row's menu`, async ({ launchApp }) => {
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-kwlist-e2e-'));
    const app = await launchApp({ viewport });
    const { page, api } = app;
    await api.addFolder({ path: await makePhotoTree() });
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
    const file = join(dir, 'Keywords.txt');
    writeFileSync(file, LIST, 'utf8');
    const list = page.getByTestId('keyword-list');
    await list.getByTestId('keyword-list-file').setInputFiles(file);
    await expect(page.getByTestId('toast-info')).toContainText('6 keywords added');
    const row = (k: string) => list.locator(`[data-testid="library-keyword"][data-keyword="${k}"]`);
    const box = (k: string) => row(k).getByTestId('library-keyword-assign');
    const keywordsOf = async (id: number) => (await api.getAsset({ id })).keywords;

    // The header: title and menu side by side; Import and Export in the menu.
    await expect(list.getByTestId('keyword-list-import')).toHaveCount(0);
    expect(await overlap(list.locator('.panel-section-head h2'), list.getByTestId('keyword-list-menu'))).toBe(false);
    // A [bracketed] keyword reads as its name, muted, marked as left out of exports.
    await expect(row('Workflow').locator('.kwl-name')).not.toContainText('[');
    await expect(row('Workflow').getByTestId('library-keyword-not-exported')).toHaveText('not exported');

    // Nothing selected: nothing to assign to.
    await expect(box('Animals|Mammals|Dog')).toBeDisabled();

    // Two photos selected, one of them with Dog: the box shows "some".
    const cells = page.getByTestId('grid-cell');
    const [a, b, c] = await Promise.all([0, 1, 2].map(async (i) => Number(await cells.nth(i).getAttribute('data-asset-id'))));
    await api.editKeywords({ ids: [a], add: ['Animals|Mammals|Dog'] });
    await cells.nth(0).click();
    await cells.nth(1).click({ modifiers: ['Control'] });
    await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
    await expect(list.getByTestId('keyword-list-target')).toContainText('the 2 photos selected');
    await expect(box('Animals|Mammals|Dog')).toHaveAttribute('data-state', 'some');
    expect(await box('Animals|Mammals|Dog').evaluate((el) => (el as HTMLInputElement).indeterminate)).toBe(true);
    await expect(box('Animals|Mammals|Cat')).toHaveAttribute('data-state', 'none');
    expect(await lowContrast(list)).toEqual([]);
    await list.scrollIntoViewIfNeeded();
    await shot(page, `keyword-list-assign-${viewport.width}`, page.getByTestId('sidebar'));

    // A click gives it to both; another takes it off both; the third photo is never touched.
    await box('Animals|Mammals|Dog').click();
    await expect(box('Animals|Mammals|Dog')).toHaveAttribute('data-state', 'all');
    // The notice names the keyword as the list shows it, never in its stored form.
    await expect(page.getByTestId('toast-info').last()).toContainText('Added “Animals › Mammals › Dog” to 2 photos.');
    await expect(page.getByTestId('inspector-multi').getByTestId('keyword-chip')).toHaveText(['Animals › Mammals › Dog×']);
    expect(await keywordsOf(a)).toEqual(['Animals|Mammals|Dog']);
    expect(await keywordsOf(b)).toEqual(['Animals|Mammals|Dog']);
    await box('Animals|Mammals|Dog').click();
    await expect(box('Animals|Mammals|Dog')).toHaveAttribute('data-state', 'none');
    expect(await keywordsOf(a)).toEqual([]);
    expect(await keywordsOf(b)).toEqual([]);
    await box('Animals|Mammals|Dog').click();
    await expect(box('Animals|Mammals|Dog')).toHaveAttribute('data-state', 'all');
    expect(await keywordsOf(c)).toEqual([]);

    // One photo: the box is about that photo alone.
    await cells.nth(2).click();
    await expect(list.getByTestId('keyword-list-target')).toContainText('the photo in the panel');
    await expect(box('Animals|Mammals|Dog')).toHaveAttribute('data-state', 'none');
    await box('Animals|Mammals|Cat').click();
    await expect(box('Animals|Mammals|Cat')).toHaveAttribute('data-state', 'all');
    expect(await keywordsOf(c)).toEqual(['Animals|Mammals|Cat']);
    expect(await keywordsOf(a)).toEqual(['Animals|Mammals|Dog']);

    // Merge from the row's menu: Dog into Cat, on every photo that had it.
    await row('Animals|Mammals|Dog').hover();
    await row('Animals|Mammals|Dog').getByTestId('library-keyword-menu').click();
    await shot(page, `keyword-list-menu-${viewport.width}`);
    await page.getByTestId('keyword-menu-merge').click();
    await page.getByTestId('keyword-merge-into').fill('Animals|Mammals|Cat');
    await page.getByTestId('confirm-keyword-merge').getByTestId('dialog-confirm').click();
    await expect(row('Animals|Mammals|Dog')).toHaveCount(0);
    await expect(row('Animals|Mammals|Cat').locator('.kwl-count')).toHaveText('3');
    expect(await keywordsOf(a)).toEqual(['Animals|Mammals|Cat']);

    // Delete from the row's menu.
    await row('Workflow|To edit').hover();
    await row('Workflow|To edit').getByTestId('library-keyword-menu').click();
    await page.getByTestId('keyword-menu-delete').click();
    await page.getByTestId('confirm-keyword-delete').getByTestId('dialog-confirm').click();
    await expect(row('Workflow|To edit')).toHaveCount(0);
    await expect(row('Animals|Mammals|Cat')).toBeVisible();
  });
}
