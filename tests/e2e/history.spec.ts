import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 34, point 5: the inspector's History shows who changed what of the photo in view, and
// when, newest first, in words a photographer reads. Folded away by default (Lightroom's
// panels); once opened it follows the photo in view. A single user's changes read "You".

test('history: the inspector lists a photo’s changes, newest first, and follows the photo in view', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = new Map<string, number>();
  for (const id of await api.searchIds({ query: {} })) ids.set((await api.getAsset({ id })).name, id);
  const beach = ids.get('beach-sunset.jpg')!;
  const forest = ids.get('forest-path.jpg')!;

  // Changes of every kind the panel words: rating, keywords, caption, collection membership.
  await api.setRating({ ids: [beach], rating: 3 });
  await api.setRating({ ids: [beach], rating: 5 });
  await api.editKeywords({ ids: [beach], add: ['beach', 'sunset'] });
  await api.editKeywords({ ids: [beach], remove: ['sunset'] });
  await api.setCaption({ ids: [beach], caption: 'Evening on the beach' });
  const portfolio = await api.createCollection({ name: 'Portfolio', kind: 'manual' });
  await api.addToCollection({ id: portfolio.id, ids: [beach] });
  await api.removeFromCollection({ id: portfolio.id, ids: [beach] });

  await page.locator(`[data-testid="grid-cell"][data-asset-id="${beach}"]`).click();
  await expect(page.getByTestId('inspector-single')).toHaveAttribute('data-asset-id', String(beach));

  // Folded away until opened.
  const section = page.getByTestId('history-section');
  await expect(section).toHaveAttribute('data-open', 'false');
  await expect(page.getByTestId('history-list')).toHaveCount(0);
  await page.getByTestId('history-section-toggle').click();
  await expect(section).toHaveAttribute('data-open', 'true');

  const list = page.getByTestId('history-list');
  await expect(list).toHaveAttribute('data-asset-id', String(beach));
  const whats = list.locator('.history-what');
  await expect(whats).toHaveText([
    'Removed from collection “Portfolio”',
    'Added to collection “Portfolio”',
    'Caption added',
    'Removed keyword “sunset”',
    'Added keyword “sunset”',
    'Added keyword “beach”',
    'Rating 3 → 5',
    'Rating set to 3',
    'Added to the library',
  ]);
  // Who and when: this computer's changes read "You", with the date as the app writes dates.
  const year = String(new Date().getFullYear());
  for (const when of await list.locator('.history-when').allTextContents()) {
    expect(when).toMatch(/^You · /);
    expect(when).toContain(year);
  }
  await shot(page, 'history-1440', page.getByTestId('inspector'));

  // An edit made now appears at the top of the open panel.
  await api.setCaption({ ids: [beach], caption: 'Last light on the beach' });
  await expect(whats.first()).toHaveText('Caption changed');

  // It follows the photo in view, and stays open.
  await page.locator(`[data-testid="grid-cell"][data-asset-id="${forest}"]`).click();
  await expect(list).toHaveAttribute('data-asset-id', String(forest));
  await expect(whats).toHaveText(['Added to the library']);

  // Kept open across a reload, as the other panels are.
  await page.reload();
  await page.locator(`[data-testid="grid-cell"][data-asset-id="${beach}"]`).click();
  await expect(page.getByTestId('history-section')).toHaveAttribute('data-open', 'true');
  await expect(page.getByTestId('history-list').locator('.history-what').first()).toHaveText('Caption changed');
});
