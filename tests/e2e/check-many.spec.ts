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
