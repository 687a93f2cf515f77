import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';

// Batch rename as a Lightroom user does it: select photos, F2, build the template from token
// buttons, check the live preview of every new name (a collision shows on its files and keeps
// Rename disabled), rename, see the grid and the disk follow, and Ctrl+Z puts the names back.
const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

test('rename a selection after checking the preview; collisions block it; Ctrl+Z undoes it', async ({ launchApp }) => {
  const app = await launchApp();
  const { page, api } = app;
  const root = await makePhotoTree();
  // A damaged file (it shows in the grid with its error) holding a name the template will want.
  writeFileSync(join(root, 'Trip-0003.JPG'), 'not a photo');
  await api.addFolder({ path: root });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length + 1);
  const cell = (name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);

  // Grid order (newest first): beach-sunset, forest-path, mountain-lake.
  await cell('beach-sunset.jpg').click();
  await cell('forest-path.jpg').click({ modifiers: ['Control'] });
  await cell('mountain-lake.jpg').click({ modifiers: ['Control'] });
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');
  await page.keyboard.press('F2');
  const dialog = page.getByTestId('rename-dialog');
  await expect(dialog).toBeVisible();

  // Build "trip-{seq:4}" with a token button.
  await page.getByTestId('rename-template').fill('trip-');
  await page.getByTestId('rename-token-sequence').click();
  await expect(page.getByTestId('rename-template')).toHaveValue('trip-{seq:4}');
  // The third name is taken on disk (in another case): shown on that file, Rename disabled.
  await expect(page.getByTestId('rename-to')).toHaveText(['trip-0001.jpg', 'trip-0002.jpg', 'trip-0003.jpg']);
  await expect(page.getByTestId('rename-problem')).toHaveText(['“Trip-0003.JPG” already exists in this folder']);
  await expect(page.getByTestId('rename-confirm')).toBeDisabled();

  // Two files given one name: both show it.
  await page.getByTestId('rename-template').fill('same');
  await expect(page.getByTestId('rename-problem')).toHaveCount(3);
  await expect(page.getByTestId('rename-confirm')).toBeDisabled();

  // An unknown token is explained.
  await page.getByTestId('rename-template').fill('{nmae}');
  await expect(page.getByTestId('rename-status')).toContainText('{nmae} is not a token');
  await expect(page.getByTestId('rename-confirm')).toBeDisabled();

  // Start at 10 with a date token: every name is free.
  await page.getByTestId('rename-template').fill('trip-');
  await page.getByTestId('rename-token-sequence').click();
  await page.getByTestId('rename-template').press('End');
  await page.getByTestId('rename-template').pressSequentially('_');
  await page.getByTestId('rename-token-date').click();
  await page.getByTestId('rename-start').fill('10');
  await expect(page.getByTestId('rename-to')).toHaveText(['trip-0010_20230714-190211.jpg', 'trip-0011_20230502-101500.jpg', 'trip-0012_20220921-084030.jpg']);
  await expect(page.getByTestId('rename-problem')).toHaveCount(0);
  await expect(page.getByTestId('rename-status')).toHaveText('3 of 3 files will be renamed.');
  await page.screenshot({ path: `${SCREENS}/rename-dialog.png` });
  await expect(page.getByTestId('rename-confirm')).toBeEnabled();
  await page.getByTestId('rename-confirm').click();
  await expect(dialog).toBeHidden();

  // The grid and the disk follow; the photo keeps what it had.
  await expect(cell('trip-0010_20230714-190211.jpg')).toBeVisible();
  await expect(cell('beach-sunset.jpg')).toHaveCount(0);
  expect(existsSync(join(root, 'trip-0011_20230502-101500.jpg'))).toBe(true);
  expect(existsSync(join(root, 'forest-path.jpg'))).toBe(false);
  await page.screenshot({ path: `${SCREENS}/rename-grid.png` });

  // Ctrl+Z: every name back.
  await cell('red-door.jpg').click();
  await page.keyboard.press('Control+z');
  await expect(cell('beach-sunset.jpg')).toBeVisible();
  await expect(cell('forest-path.jpg')).toBeVisible();
  await expect(cell('mountain-lake.jpg')).toBeVisible();
  await expect(page.locator('[data-testid="grid-cell"][data-name^="trip-"]')).toHaveCount(0);
  expect(existsSync(join(root, 'forest-path.jpg'))).toBe(true);
  expect(existsSync(join(root, 'Trip-0003.JPG'))).toBe(true);
});
