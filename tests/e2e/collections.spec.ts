import { mkdirSync } from 'node:fs';
import { expect, test } from './harness';
import { shotSizes } from './shots';
import { makePhotoTree, PHOTOS } from './photos';

// Collections as a Lightroom user works with them: make a set and a collection in it, drag
// the selected photos onto the collection, arrange them in a custom order by dragging, take
// one out with Delete (and back with Ctrl+Z), add with B to the target collection; save the
// filters in use as a smart collection and watch its count and contents follow an edit.
const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

test('collections: drag photos onto a new collection, custom order, Delete and B; a smart collection follows an edit', async ({ launchApp }) => {
  const app = await launchApp();
  const { page, api } = app;
  const root = await makePhotoTree();
  await api.addFolder({ path: root });
  const cells = page.getByTestId('grid-cell');
  await expect(cells).toHaveCount(PHOTOS.length);
  const cell = (name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);
  const collection = (name: string) => page.locator(`[data-testid="collection-item"][data-name="${name}"]`);
  const row = (name: string) => collection(name).getByTestId('collection-row');

  // A set, and a collection inside it.
  await page.getByTestId('collection-new-set').click();
  await page.getByTestId('collection-create-name').fill('Clients');
  await page.getByTestId('collection-create-submit').click();
  await expect(collection('Clients')).toHaveAttribute('data-kind', 'set');
  await page.getByTestId('collection-new').click();
  await page.getByTestId('collection-create-parent').selectOption({ label: 'In “Clients”' });
  await page.getByTestId('collection-create-name').fill('Portfolio');
  await page.getByTestId('collection-create-submit').click();
  await expect(collection('Portfolio')).toHaveAttribute('data-count', '0');

  // Select two photos and drag them (the whole selection) onto the collection.
  await cell('beach-sunset.jpg').click();
  await cell('forest-path.jpg').click({ modifiers: ['Control'] });
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  await cell('forest-path.jpg').dragTo(row('Portfolio'));
  await expect(collection('Portfolio')).toHaveAttribute('data-count', '2');
  await expect(collection('Clients')).toHaveAttribute('data-count', '2');
  await expect(page.getByTestId('toast-info').last()).toContainText('Added 2 photos to “Portfolio”');
  // Nothing else in the library changed: every photo is still there.
  await expect(cells).toHaveCount(PHOTOS.length);

  // Show it, in its custom order (ascending), and drag forest-path before beach-sunset.
  await row('Portfolio').click();
  await expect(cells).toHaveCount(2);
  await page.getByTestId('sort').selectOption('custom');
  if ((await page.getByTestId('order').getAttribute('aria-label')) !== 'Ascending') await page.getByTestId('order').click();
  await expect(page.getByTestId('order')).toHaveAttribute('aria-label', 'Ascending');
  const names = () => cells.evaluateAll((els) => els.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map((e) => e.dataset.name));
  const before = await names();
  expect(before.sort()).toEqual(['beach-sunset.jpg', 'forest-path.jpg']);
  const [first, second] = await names();
  await cell(second!).click();
  await cell(second!).dragTo(cell(first!));
  await expect.poll(names).toEqual([second, first]);

  // Delete takes a photo out of the collection (never the file); Ctrl+Z puts it back.
  await cell('beach-sunset.jpg').click();
  await page.keyboard.press('Delete');
  await expect(cells).toHaveCount(1);
  await expect(collection('Portfolio')).toHaveAttribute('data-count', '1');
  await page.keyboard.press('Control+z');
  await expect(cells).toHaveCount(2);
  await expect.poll(names).toEqual([second, first]);

  // The context menu closes with Escape, changing nothing.
  await row('Portfolio').click({ button: 'right' });
  await expect(page.getByTestId('collection-menu')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('collection-menu')).toHaveCount(0);
  await expect(collection('Portfolio').getByTestId('collection-target')).toHaveCount(0);

  // The target collection: set from the context menu (shown with a +), then B adds to it.
  await row('Portfolio').click({ button: 'right' });
  await page.getByTestId('collection-menu-target').click();
  await expect(collection('Portfolio').getByTestId('collection-target')).toBeVisible();
  await row('Portfolio').click(); // back to the whole library
  await expect(cells).toHaveCount(PHOTOS.length);
  await cell('red-door.jpg').click();
  await page.keyboard.press('b');
  await expect(collection('Portfolio')).toHaveAttribute('data-count', '3');

  // Save the filters in use (4 stars and up) as a smart collection: none match yet.
  await page.getByTestId('filter-rating-4').click();
  await expect(page.getByTestId('empty-no-results')).toBeVisible();
  await page.getByTestId('filter-save-smart').click();
  await page.getByTestId('save-smart-name').fill('Best');
  await page.getByTestId('save-smart-parent').selectOption({ label: 'Clients' });
  await page.getByTestId('save-smart-submit').click();
  await expect(collection('Best')).toHaveAttribute('data-kind', 'smart');
  await expect(collection('Best')).toHaveAttribute('data-count', '0');
  await expect(page.getByTestId('filter-summary-collectionId')).toContainText('In “Best”');

  // An edit elsewhere: rate a photo 5 stars; the smart collection's count and contents follow.
  await page.getByTestId('filter-summary-clear').click();
  await expect(cells).toHaveCount(PHOTOS.length);
  await cell('city-night.jpg').click();
  await page.keyboard.press('5');
  await expect(collection('Best')).toHaveAttribute('data-count', '1');
  await row('Best').click();
  await expect(cells).toHaveCount(1);
  await expect(cells.first()).toHaveAttribute('data-name', 'city-night.jpg');
  // ...and an undo takes it out again.
  await page.keyboard.press('Control+z');
  await expect(collection('Best')).toHaveAttribute('data-count', '0');
  await expect(page.getByTestId('empty-no-results')).toBeVisible();

  // Edit its search in the filter panel: 1 star and up, saved back to it.
  await row('Best').click({ button: 'right' });
  await page.getByTestId('collection-menu-edit').click();
  await expect(page.getByTestId('smart-editing')).toBeVisible();
  await page.getByTestId('filter-rating-1').click();
  await page.getByTestId('smart-edit-save').click();
  const saved = (await api.listCollections()).find((c) => c.name === 'Best');
  expect(saved?.query).toEqual({ minRating: 1 });

  await expect(page.getByTestId('filter-summary-collectionId')).toContainText('In “Best”');
  await page.getByTestId('filter-summary-clear').click();
  await cell('mountain-lake.jpg').click();
  await page.keyboard.press('1');
  await expect(collection('Best')).toHaveAttribute('data-count', '1');

  await page.getByTestId('sidebar').screenshot({ path: `${SCREENS}/collections-sidebar.png` });
  await page.screenshot({ path: `${SCREENS}/collections-window.png` });
  await shotSizes(page, 'collections');
});
