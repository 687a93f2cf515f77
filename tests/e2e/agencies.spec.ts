import { readFileSync } from 'node:fs';
import { expect, test } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { SCREENS } from './shots';

// Issue 19 through the UI: check a selection against Adobe Stock's rules, fix the flagged
// title in the inspector, set a category for the whole selection, and export the CSV — the
// photos that pass are in it, with their category; the real Api and catalogue underneath.

const HARBOUR: TestPhoto[] = [
  { file: 'harbour-dawn.jpg', colour: [40, 90, 150], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:10:00', width: 2500, height: 1700 },
  { file: 'harbour-nets.jpg', colour: [60, 110, 140], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:20:00', width: 2500, height: 1700 },
];

test('check a selection against Adobe Stock, fix a flagged title, set a category, export the CSV', async ({ launchApp }) => {
  const app = await launchApp();
  const { page, api } = app;
  const root = await makePhotoTree(HARBOUR);
  await api.addFolder({ path: root });
  await expect(page.getByTestId('grid-cell')).toHaveCount(2);
  const all = await api.search({ query: {}, page: { offset: 0, limit: 10 } });
  const ids = all.items.map((a) => a.id);
  await api.editKeywords({ ids, add: ['harbour', 'boat', 'dawn', 'sea'] });
  const nets = all.items.find((a) => a.name === 'harbour-nets.jpg')!.id;
  await api.setTitle({ ids: [nets], title: 'Nets, ropes and boats in the harbour' });
  await api.setTitle({ ids: ids.filter((id) => id !== nets), title: 'Fishing boats in the harbour at dawn' });

  // Check the selection: the comma'd title is flagged, the other photo passes.
  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  await page.getByTestId('action-csv').click();
  let dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency-adobe').click();
  await expect(dialog.getByTestId('csv-summary')).toContainText('1 of 2 pass Adobe Stock');
  const verdict = dialog.getByTestId('csv-verdict');
  await expect(verdict).toHaveCount(1);
  await expect(verdict).toContainText('harbour-nets.jpg');
  await expect(verdict).toContainText('contains commas, which Adobe Stock does not allow');
  await expect(dialog.getByTestId('csv-confirm')).toHaveText('Export 1…');
  await page.screenshot({ path: `${SCREENS}/agency-check.png` });
  await dialog.getByTestId('csv-cancel').click();

  // Fix the title in the inspector; set Adobe's category for the whole selection.
  await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click();
  const title = page.getByTestId('title');
  await title.fill('Nets ropes and boats in the harbour');
  await title.press('Enter');
  await expect(page.getByTestId('title-status')).toHaveText('Saved');
  await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  await page.getByTestId('stock-category-adobe-0').selectOption({ label: 'Transport' });
  await expect.poll(async () => (await api.getStockFields({ id: nets })).categories.adobe).toEqual(['20']);

  // Check again: both pass; export both, as a download.
  await page.getByTestId('action-csv').click();
  dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency-adobe').click();
  await expect(dialog.getByTestId('csv-summary')).toContainText('2 of 2 pass Adobe Stock');
  await expect(dialog.getByTestId('csv-verdict')).toHaveCount(0);
  const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('csv-confirm').click()]);
  const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
  expect(lines[0]).toBe('Filename,Title,Keywords,Category,Releases');
  expect(lines.slice(1).sort()).toEqual([
    'harbour-dawn.jpg,Fishing boats in the harbour at dawn,"harbour,boat,dawn,sea",20,',
    'harbour-nets.jpg,Nets ropes and boats in the harbour,"harbour,boat,dawn,sea",20,',
  ]);
  await expect(dialog.getByTestId('csv-result')).toContainText('2 rows exported for Adobe Stock');
  await dialog.getByTestId('csv-done').click();
});
