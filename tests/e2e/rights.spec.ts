import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { SCREENS } from './shots';

// Stock and rights fields in the inspector: edited for one photo, saved as a named preset,
// applied to a whole selection in one step, and undone with Ctrl+Z.

test('rights fields: edit one photo, save a preset, apply it to a selection, undo', async ({ launchApp }) => {
  const app = await launchApp();
  const { page, api } = app;
  const root = await makePhotoTree();
  await api.addFolder({ path: root });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

  // One photo: creator and city, saved only once the Api committed them.
  await page.locator('[data-testid="grid-cell"][data-name="beach-sunset.jpg"]').click();
  const rights = page.getByTestId('rights-section');
  await rights.getByTestId('rights-creator').fill('Ana Silva');
  await rights.getByTestId('rights-creator').press('Enter');
  await expect(rights.getByTestId('rights-creator-status')).toHaveText('Saved');
  await rights.getByTestId('rights-city').fill('Lisboa');
  await rights.getByTestId('rights-city').press('Enter');
  await expect(rights.getByTestId('rights-city-status')).toHaveText('Saved');

  // Save those fields as a preset.
  await rights.getByTestId('preset-new').click();
  await rights.getByTestId('preset-name').fill('Lisbon shoot');
  await rights.getByTestId('preset-save').click();
  await expect(rights.getByTestId('preset-apply').locator('option')).toContainText(['Apply preset…', 'Lisbon shoot']);
  await page.screenshot({ path: `${SCREENS}/rights.png` });

  // Select everything and apply the preset to all six in one step.
  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText(`${PHOTOS.length} selected`);
  await page.getByTestId('rights-section').getByTestId('preset-apply').selectOption({ label: 'Lisbon shoot' });
  await expect.poll(async () => {
    const all = await api.search({ query: {}, page: { offset: 0, limit: 50 } });
    const details = await Promise.all(all.items.map((a) => api.getAsset({ id: a.id })));
    return details.filter((d) => d.rights.creator === 'Ana Silva' && d.rights.city === 'Lisboa').length;
  }).toBe(PHOTOS.length);

  // Undo takes the whole preset back off the five it was new to, leaving the first photo's hand edits.
  await page.keyboard.press('Control+z');
  await expect.poll(async () => {
    const all = await api.search({ query: {}, page: { offset: 0, limit: 50 } });
    const details = await Promise.all(all.items.map((a) => api.getAsset({ id: a.id })));
    return details.filter((d) => d.rights.creator === 'Ana Silva').map((d) => d.name);
  }).toEqual(['beach-sunset.jpg']);
});
