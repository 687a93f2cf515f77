import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// A Lightroom keyword list imported from the keyword list panel: its hierarchy and synonyms
// show in the list, a keyword not included on export shows as [name], a photo tagged with a
// keyword from it is found, and the list exported from the app is the same bytes.

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
  await expect(row('Workflow').locator('.kwl-name')).toHaveText('[Workflow]');
  await list.scrollIntoViewIfNeeded();
  await shot(page, 'keyword-list-synonyms', page.getByTestId('sidebar'));

  // A photo gets the keyword; the list counts it and filters the grid by it.
  const { items } = await api.search({ query: {}, page: { offset: 0, limit: 1 } });
  await api.editKeywords({ ids: [items[0].id], add: ['Animals|Mammals|Cat'] });
  await expect(row('Animals|Mammals|Cat').locator('.kwl-count')).toHaveText('1');
  await row('Animals|Mammals|Cat').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(1);

  // Export from the panel: exactly what Lightroom would read (UTF-8, LF, no BOM).
  await list.getByTestId('keyword-list-export').click();
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
