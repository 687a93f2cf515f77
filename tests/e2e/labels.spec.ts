import { mkdirSync } from 'node:fs';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';

// Colour labels as a Lightroom user sets them: keys 6-9 on the selection (the same key again
// takes the label off), purple from the inspector's label menu, shown on the cells and in
// the loupe, filtered in the sidebar, and undone with Ctrl+Z.
const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

test('colour labels: keys 6-9, purple from the menu, cells and loupe, filter, undo', async ({ launchApp }) => {
  const app = await launchApp();
  const { page, api } = app;
  const root = await makePhotoTree();
  await api.addFolder({ path: root });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  const cell = (name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);

  // 6 on one photo: red.
  await cell('beach-sunset.jpg').click();
  await page.keyboard.press('6');
  await expect(cell('beach-sunset.jpg')).toHaveAttribute('data-label', 'red');
  await expect(cell('beach-sunset.jpg').getByTestId('cell-label')).toBeVisible();
  await expect(page.getByTestId('inspector-label')).toHaveAttribute('data-label', 'red');

  // 8 on two photos at once: green; 9 on another: blue.
  await cell('forest-path.jpg').click();
  await cell('mountain-lake.jpg').click({ modifiers: ['Control'] });
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  await page.keyboard.press('8');
  await expect(cell('forest-path.jpg')).toHaveAttribute('data-label', 'green');
  await expect(cell('mountain-lake.jpg')).toHaveAttribute('data-label', 'green');
  await cell('city-night.jpg').click();
  await page.keyboard.press('9');
  await expect(cell('city-night.jpg')).toHaveAttribute('data-label', 'blue');
  // The same key again takes it off.
  await page.keyboard.press('9');
  await expect(cell('city-night.jpg')).not.toHaveAttribute('data-label', /./);
  // Purple has no key: the inspector's label menu.
  await page.getByTestId('inspector-label-purple').click();
  await expect(cell('city-night.jpg')).toHaveAttribute('data-label', 'purple');

  // The loupe shows it.
  await page.keyboard.press('e');
  await expect(page.getByTestId('loupe-label')).toHaveAttribute('data-label', 'purple');
  await page.keyboard.press('g');
  await page.screenshot({ path: `${SCREENS}/labels-grid.png` });

  // Filter by label in the sidebar.
  await page.getByTestId('filter-label-green').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(2);
  await expect(page.locator('[data-testid="grid-cell"][data-label="green"]')).toHaveCount(2);
  await page.getByTestId('filter-label-none').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(2); // red-door and snow-field
  await page.getByTestId('filter-label-none').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

  // Ctrl+Z takes the purple label back off (the last edit), as the Api says.
  await cell('red-door.jpg').click();
  await page.keyboard.press('Control+z');
  await expect(cell('city-night.jpg')).not.toHaveAttribute('data-label', /./);
  await expect(cell('beach-sunset.jpg')).toHaveAttribute('data-label', 'red');
  const labelled = await api.search({ query: { label: 'green' }, page: { offset: 0, limit: 10 } });
  expect(labelled.items.map((a) => a.name).sort()).toEqual(['forest-path.jpg', 'mountain-lake.jpg']);
});
