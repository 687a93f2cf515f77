import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// A metadata template beyond the six rights fields: usage terms, the creator's contact and the
// location created, filled in the inspector for one photo, saved with keywords to add, applied
// to the whole selection in one step and taken back with one Ctrl+Z.

test('metadata template: IPTC Extension fields and keywords applied to a selection, then undone', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 1000 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

  await page.locator('[data-testid="grid-cell"][data-name="beach-sunset.jpg"]').click();
  const rights = page.getByTestId('rights-section');
  const fill = async (group: string, field: string, value: string) => {
    const details = rights.getByTestId(group);
    if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await details.locator('summary').click();
    await rights.getByTestId(`rights-${field}`).fill(value);
    await rights.getByTestId(`rights-${field}`).press('Enter');
    await expect(rights.getByTestId(`rights-${field}-status`)).toHaveText('Saved');
  };
  await fill('rights-more-usage', 'usageTerms', 'Editorial use only');
  await fill('rights-more-contact', 'creatorEmail', 'ana@example.com');
  await fill('rights-more-created', 'createdCity', 'Lisboa');
  await fill('rights-more-created', 'createdCountryCode', 'PRT');

  await rights.getByTestId('preset-new').click();
  await rights.getByTestId('preset-name').fill('Lisbon editorial');
  await rights.getByTestId('preset-keywords').fill('Lisbon, Places|Portugal');
  await rights.getByTestId('preset-save').click();
  await expect(rights.getByTestId('preset-apply').locator('option')).toContainText(['Apply preset…', 'Lisbon editorial']);
  await shot(page, 'template-fields', rights);

  // The whole selection, in one step.
  await page.getByTestId('grid-cell').first().click();
  await page.keyboard.press('Control+a');
  await expect(page.getByTestId('selected-count')).toHaveText(`${PHOTOS.length} selected`);
  await page.getByTestId('rights-section').getByTestId('preset-apply').selectOption({ label: 'Lisbon editorial' });
  const withTemplate = async () => {
    const all = await api.search({ query: {}, page: { offset: 0, limit: 50 } });
    const details = await Promise.all(all.items.map((a) => api.getAsset({ id: a.id })));
    return details
      .filter((d) => d.rights.usageTerms === 'Editorial use only' && d.rights.creatorEmail === 'ana@example.com' && d.rights.createdCity === 'Lisboa' && d.rights.createdCountryCode === 'PRT')
      .filter((d) => d.keywords.includes('Lisbon') && d.keywords.includes('Places|Portugal'))
      .map((d) => d.name)
      .sort();
  };
  await expect.poll(withTemplate).toEqual(PHOTOS.map((p) => p.file.split('/').pop()!).sort());
  // Each is a pending write, like keywords.
  const first = (await api.search({ query: {}, page: { offset: 0, limit: 1 } })).items[0];
  await expect.poll(async () => (await api.syncState({ id: first.id })).status).toBe('unsaved');

  // One undo takes the template back off all of them; the first photo keeps its own fields.
  await page.keyboard.press('Control+z');
  await expect.poll(withTemplate).toEqual([]);
  const beach = (await api.search({ query: { text: 'beach' }, page: { offset: 0, limit: 5 } })).items[0];
  const detail = await api.getAsset({ id: beach.id });
  expect(detail.rights).toMatchObject({ usageTerms: 'Editorial use only', createdCity: 'Lisboa' });
  expect(detail.keywords).not.toContain('Lisbon');
});
