import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shotSizes } from './shots';

// Issue 35, point 1: the panel always belongs to the photo in view. In culling (with "advance
// after flagging" on), the loupe, compare (the active side) and survey, the inspector names and
// edits exactly the photo the user sees; several photos are edited at once only in the grid.

test('culling: flag with advance on, then type a caption: it lands on the photo in view and on no other', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);

  // A photo selected in the grid (the panel's before culling), not the one culling shows second.
  const walk = [...(await api.searchIds({ query: { sort: 'quality', order: 'desc' } }))];
  const gridId = walk[walk.length - 1];
  expect(gridId).not.toBe(walk[1]);
  await page.locator(`[data-testid="grid-cell"][data-asset-id="${gridId}"]`).click();
  await expect(page.getByTestId('inspector-single')).toHaveAttribute('data-asset-id', String(gridId));

  await page.getByTestId('action-cull').click();
  const cull = page.getByTestId('cull');
  await expect(page.getByTestId('cull-position')).toHaveText(`1 / ${PHOTOS.length}`);
  await expect(page.getByTestId('cull-advance')).toBeChecked();
  await page.keyboard.press('p');
  await expect(page.getByTestId('cull-position')).toHaveText(`2 / ${PHOTOS.length}`);
  const inView = Number(await cull.getAttribute('data-asset-id'));
  expect(inView).toBe(walk[1]);
  const viewName = (await api.getAsset({ id: inView })).name;

  // The panel names the photo on the stage, not the one selected in the grid.
  const inspector = page.getByTestId('inspector-single');
  await expect(inspector).toHaveAttribute('data-asset-id', String(inView));
  await expect(page.getByTestId('inspector-name')).toHaveText(viewName);
  await expect(page.getByTestId('inspector-multi')).toHaveCount(0);
  await shotSizes(page, 'panel-follows-cull');

  await page.getByTestId('caption').fill('Harbour at dawn');
  await page.getByTestId('caption').press('Enter');
  await expect(page.getByTestId('caption-status')).toHaveText('Saved');

  // Through the catalogue: on the photo in view, and on no other photo.
  expect((await api.getAsset({ id: inView })).caption).toBe('Harbour at dawn');
  const all = await api.searchIds({ query: {} });
  const captioned: number[] = [];
  for (const id of all) if ((await api.getAsset({ id })).caption) captioned.push(id);
  expect(captioned).toEqual([inView]);
  expect((await api.getAsset({ id: gridId })).caption).toBeNull();
});

test('loupe, compare and survey: the panel shows the photo in view; "N selected" only in the grid', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makePhotoTree() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);

  // Three selected in the grid: the panel edits all three and says so.
  const cells = page.getByTestId('grid-cell');
  await cells.nth(0).click();
  await cells.nth(2).click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');

  // The loupe shows one photo: the panel is that photo's, and a star key rates only it.
  await page.keyboard.press('e');
  await expect(page.getByTestId('loupe')).toBeVisible();
  const single = page.getByTestId('inspector-single');
  await expect(single).toBeVisible();
  await expect(page.getByTestId('inspector-multi')).toHaveCount(0);
  const loupeId = Number(await single.getAttribute('data-asset-id'));
  await expect(page.getByTestId('inspector-name')).toHaveText((await api.getAsset({ id: loupeId })).name);
  await page.keyboard.press('4');
  await expect.poll(async () => (await api.getAsset({ id: loupeId })).rating).toBe(4);
  const rated = (await api.searchIds({ query: { minRating: 1 } })).length;
  expect(rated).toBe(1);
  await shotSizes(page, 'panel-follows-loupe');
  await page.keyboard.press('g');
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');

  // Compare: the panel follows the active side.
  await page.keyboard.press('c');
  const compare = page.getByTestId('compare');
  await expect(compare).toBeVisible();
  const activeName = async () => (await compare.locator('[data-active="true"]').first().getAttribute('data-name')) ?? '';
  await expect.poll(activeName).not.toBe('');
  await expect(page.getByTestId('inspector-name')).toHaveText(await activeName());
  // A press on the other photo makes it the active side.
  await compare.locator('[data-active="false"]').first().click();
  await expect(compare).toHaveAttribute('data-active-side', 'candidate');
  await expect.poll(activeName).not.toBe('');
  const candidateName = await activeName();
  await expect(page.getByTestId('inspector-name')).toHaveText(candidateName);
  await page.getByTestId('title').fill('The candidate');
  await page.getByTestId('title').press('Enter');
  await expect(page.getByTestId('title-status')).toHaveText('Saved');
  const titled = (await api.searchIds({ query: {} }));
  const withTitle: string[] = [];
  for (const id of titled) {
    const a = await api.getAsset({ id });
    if (a.title) withTitle.push(a.name);
  }
  expect(withTitle).toEqual([candidateName]);
  await shotSizes(page, 'panel-follows-compare');
  await page.getByTestId('title').blur();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('grid')).toBeVisible();

  // Survey: a press on a frame makes it active, and the panel follows it.
  await page.keyboard.press('n');
  const frames = page.getByTestId('survey-cell');
  await expect(frames).toHaveCount(3);
  await frames.nth(1).click();
  await expect(frames.nth(1)).toHaveAttribute('data-active', 'true');
  await expect(page.getByTestId('inspector-name')).toHaveText((await frames.nth(1).getAttribute('data-name'))!);
  await expect(page.getByTestId('inspector-multi')).toHaveCount(0);
  await shotSizes(page, 'panel-follows-survey');
});
