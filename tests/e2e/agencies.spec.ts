import { readFileSync } from 'node:fs';
import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { shot } from './shots';

// Issue 19 through the UI: check a selection against Adobe Stock's rules, fix the flagged
// title in the inspector, set a category for the whole selection, and export the CSV — the
// photos that pass are in it, with their category; the real Api and catalogue underneath.
// Issue 35, point 7: the verdict on top, the agency a picker, each problem fixed where it is
// shown (a one-click fix, or the field in an input), the check run again after each fix.

const HARBOUR: TestPhoto[] = [
  { file: 'harbour-dawn.jpg', colour: [40, 90, 150], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:10:00', width: 2500, height: 1700 },
  { file: 'harbour-nets.jpg', colour: [60, 110, 140], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:20:00', width: 2500, height: 1700 },
];

test('check a selection against Adobe Stock, fix a flagged title, set a category, export the CSV', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
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
  await dialog.getByTestId('csv-agency').selectOption('adobe');
  await expect(dialog.getByTestId('csv-summary')).toContainText('1 of 2 pass Adobe Stock');
  const verdict = dialog.getByTestId('csv-verdict');
  await expect(verdict).toHaveCount(1);
  await expect(verdict).toContainText('harbour-nets.jpg');
  await expect(verdict).toContainText('contains commas, which Adobe Stock does not allow');
  await expect(dialog.getByTestId('csv-confirm')).toHaveText('Export 1…');
  // The verdict comes first, above the problems; the problem is on the title, with its fix.
  const summaryBox = (await dialog.getByTestId('csv-summary').boundingBox())!;
  expect(summaryBox.y).toBeLessThan((await verdict.boundingBox())!.y);
  const issue = verdict.getByTestId('csv-issue');
  await expect(issue).toHaveAttribute('data-field', 'title');
  await expect(issue.getByTestId('csv-fix-input')).toHaveValue('Nets, ropes and boats in the harbour');
  await shot(page, 'agency-check');
  expect(await lowContrast(dialog), 'check & export').toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, 'agency-check-1280');

  // One click takes the commas out of the title; the check runs again and the photo passes.
  await issue.getByTestId('csv-fix-oneclick').click();
  await expect(dialog.getByTestId('csv-summary')).toContainText('2 of 2 pass Adobe Stock');
  await expect(dialog.getByTestId('csv-verdict')).toHaveCount(0);
  expect((await api.getAsset({ id: nets })).title).toBe('Nets ropes and boats in the harbour');
  await expect(dialog.getByTestId('csv-confirm')).toHaveText('Export 2…');
  await shot(page, 'agency-check-passed');
  await dialog.getByTestId('csv-cancel').click();

  // A comma again, fixed by typing in the problem's own input this time.
  await api.setTitle({ ids: [nets], title: 'Nets, ropes' });
  await page.getByTestId('action-csv').click();
  dialog = page.getByTestId('export-csv');
  // The picker remembers the agency checked last.
  await expect(dialog.getByTestId('csv-agency')).toHaveValue('adobe');
  await expect(dialog.getByTestId('csv-summary')).toContainText('1 of 2 pass Adobe Stock');
  const input = dialog.getByTestId('csv-verdict').getByTestId('csv-fix-input');
  await expect(input).toHaveValue('Nets, ropes');
  await input.fill('Nets ropes and boats in the harbour');
  await input.press('Enter');
  await expect(dialog.getByTestId('csv-summary')).toContainText('2 of 2 pass Adobe Stock');
  expect((await api.getAsset({ id: nets })).title).toBe('Nets ropes and boats in the harbour');
  await dialog.getByTestId('csv-cancel').click();

  // Set Adobe's category for the whole selection in the inspector.
  await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  await page.getByTestId('stock-category-adobe-0').selectOption({ label: 'Transport' });
  await expect.poll(async () => (await api.getStockFields({ id: nets })).categories.adobe).toEqual(['20']);

  // Check again: both pass; export both, as a download.
  await page.getByTestId('action-csv').click();
  dialog = page.getByTestId('export-csv');
  await dialog.getByTestId('csv-agency').selectOption('adobe');
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
