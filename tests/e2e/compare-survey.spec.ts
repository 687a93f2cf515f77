import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import sharp from 'sharp';
import { expect, test } from './harness';
import { shot } from './shots';

// Culling a burst as a Lightroom user does: the loupe at 100 % (Z, a click on a point, drag and
// arrows to pan) on a 24 MP frame; Survey (N) of the burst with every frame zoomed to 100 % on
// the same place, one taken out, the sharp one picked; Compare (C) of two frames with the zoom
// locked, then unlocked, a new candidate, and rate / label / reject inside. Everything asserted
// is what the user sees: how big each picture is drawn, where it sits, the flags and stars.

const W = 3000;
const H = 2000;

/** One scene with fine detail (a ruled grid, text, noise), so 100 % differs visibly from fit. */
function scene(width: number, height: number, frame: number): Buffer {
  const lines: string[] = [];
  for (let x = 0; x < width; x += 50) lines.push(`<line x1="${x}" y1="0" x2="${x}" y2="${height}" stroke="#fff" stroke-opacity="0.18" stroke-width="2"/>`);
  for (let y = 0; y < height; y += 50) lines.push(`<line x1="0" y1="${y}" x2="${width}" y2="${y}" stroke="#fff" stroke-opacity="0.18" stroke-width="2"/>`);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b6fa8"/><stop offset="0.6" stop-color="#e7b07a"/><stop offset="1" stop-color="#3a2a22"/></linearGradient></defs>
      <rect width="100%" height="100%" fill="url(#sky)"/>
      <circle cx="${width * (0.62 + frame * 0.01)}" cy="${height * 0.38}" r="${height * 0.12}" fill="#ffe2a8"/>
      <path d="M0 ${height * 0.78} L${width * 0.2} ${height * 0.52} L${width * 0.42} ${height * 0.7} L${width * 0.66} ${height * 0.45} L${width} ${height * 0.74} L${width} ${height} L0 ${height} Z" fill="#1f2a24"/>
      ${lines.join('')}
      <text x="${width * 0.08}" y="${height * 0.18}" font-family="sans-serif" font-size="${Math.round(height / 14)}" fill="#fff">FRAME ${frame}</text>
      <text x="${width * 0.5}" y="${height * 0.92}" font-family="sans-serif" font-size="18" fill="#fff">fine print only readable at one to one</text>
    </svg>`,
  );
}

async function writeFrame(path: string, width: number, height: number, frame: number, blur: number, taken: string, upsideDown = false): Promise<void> {
  const sharpScene = await sharp(scene(width, height, frame)).flatten({ background: '#000' }).rotate(upsideDown ? 180 : 0).toBuffer();
  let img = sharp(sharpScene);
  if (blur > 0) img = img.blur(blur);
  await img
    .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5', DateTime: taken }, IFD2: { DateTimeOriginal: taken } })
    .jpeg({ quality: 88 })
    .toFile(path);
}

/** Where the 100 % picture is drawn inside its frame, and how big. */
async function placement(frame: Locator): Promise<{ x: number; y: number; w: number; h: number; fw: number; fh: number }> {
  const f = await frame.boundingBox();
  const img = await frame.locator('img').first().boundingBox();
  if (!f || !img) throw new Error('the picture is not on screen');
  return { x: Math.round(img.x - f.x), y: Math.round(img.y - f.y), w: Math.round(img.width), h: Math.round(img.height), fw: f.width, fh: f.height };
}

/** Equal within the one pixel that rounding a sub-pixel position can give. */
function expectMoved(after: { x: number; y: number }, before: { x: number; y: number }, dx: number, dy: number): void {
  expect(Math.abs(after.x - before.x - dx), `moved ${after.x - before.x} px across, not ${dx}`).toBeLessThanOrEqual(1);
  expect(Math.abs(after.y - before.y - dy), `moved ${after.y - before.y} px down, not ${dy}`).toBeLessThanOrEqual(1);
}

/** Every one of `count` pictures has loaded (what the user sees before judging them). */
async function expectPicturesShown(imgs: Locator, count: number): Promise<void> {
  await expect(imgs).toHaveCount(count);
  for (let i = 0; i < count; i++) await expect.poll(() => imgs.nth(i).evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
}

async function drag(page: Page, target: Locator, dx: number, dy: number): Promise<void> {
  const b = (await target.boundingBox())!;
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 3 });
  await page.mouse.move(x + dx, y + dy, { steps: 3 });
  await page.mouse.up();
}

test('loupe 100 % and pan, survey a burst at 100 % in sync and pick the sharp frame, compare two and judge inside', async ({ launchApp }) => {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-burst-'));
  // A burst of four frames of one scene (only frame 2 is sharp) and one 24 MP frame of another
  // picture (the scene upside down: no similar frame of it).
  const burst = [
    { name: 'burst-1.jpg', blur: 3, taken: '2024:05:01 10:00:01' },
    { name: 'burst-2.jpg', blur: 0, taken: '2024:05:01 10:00:02' },
    { name: 'burst-3.jpg', blur: 2.5, taken: '2024:05:01 10:00:03' },
    { name: 'burst-4.jpg', blur: 4, taken: '2024:05:01 10:00:04' },
  ];
  for (const [i, b] of burst.entries()) await writeFrame(join(root, b.name), W, H, i + 1, b.blur, b.taken);
  await writeFrame(join(root, 'big-24mp.jpg'), 6000, 4000, 9, 0, '2024:05:02 09:00:00', true);

  const { page, api } = await launchApp();
  await api.addFolder({ path: root });
  const cells = page.getByTestId('grid-cell');
  await expect(cells).toHaveCount(5);
  const cell = (name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);
  const dpr = await page.evaluate(() => window.devicePixelRatio);

  // ---- Loupe: Z shows the 24 MP frame at 100 % (6000 x 4000 picture pixels, 1:1 on screen) ----
  await cell('big-24mp.jpg').click();
  await page.keyboard.press('e');
  await expect(page.getByTestId('loupe-img')).toBeVisible();
  const loupeFrame = page.getByTestId('loupe-zoom');
  await expect(loupeFrame).toHaveAttribute('data-zoom', 'fit');
  await page.keyboard.press('z');
  await expect(loupeFrame).toHaveAttribute('data-zoom', '100');
  await expect(loupeFrame).toHaveAttribute('data-natural-width', '6000');
  let at = await placement(loupeFrame);
  expect([at.w, at.h]).toEqual([Math.round(6000 / dpr), Math.round(4000 / dpr)]);
  // Centred on the middle of the picture.
  expect(Math.abs(at.fw / 2 - at.x - at.w / 2)).toBeLessThanOrEqual(1);
  await shot(page, 'loupe-100');

  // Drag pans by exactly the drag; an arrow pans an eighth of the picture.
  await drag(page, loupeFrame, 200, 120);
  let moved = await placement(loupeFrame);
  expectMoved(moved, at, 200, 120);
  await page.keyboard.press('ArrowRight');
  at = moved;
  moved = await placement(loupeFrame);
  expect(Math.abs(moved.x - at.x + at.w / 8)).toBeLessThanOrEqual(1);
  expectMoved(moved, at, -at.w / 8, 0);
  await expect(page.getByTestId('loupe')).toHaveAttribute('data-asset-id', /\d+/);
  const bigId = await page.getByTestId('loupe').getAttribute('data-asset-id');

  // Z again: fit. A click on a point of the picture zooms to 100 % centred on that point.
  await page.keyboard.press('z');
  await expect(loupeFrame).toHaveAttribute('data-zoom', 'fit');
  const fit = (await page.getByTestId('loupe-img').boundingBox())!;
  expect(fit.width).toBeLessThan(6000 / dpr);
  await page.mouse.click(fit.x + fit.width * 0.25, fit.y + fit.height * 0.3);
  await expect(loupeFrame).toHaveAttribute('data-zoom', '100');
  at = await placement(loupeFrame);
  expect(Math.abs(at.fw / 2 - at.x - at.w * 0.25)).toBeLessThanOrEqual(at.w / fit.width + 1);
  expect(Math.abs(at.fh / 2 - at.y - at.h * 0.3)).toBeLessThanOrEqual(at.h / fit.height + 1);
  await expect(page.getByTestId('loupe')).toHaveAttribute('data-asset-id', bigId!);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('grid')).toBeVisible();
  // Z in the grid opens the loupe at 100 % straight away; G goes back.
  await page.keyboard.press('z');
  await expect(page.getByTestId('loupe-zoom')).toHaveAttribute('data-zoom', '100');
  await expect(page.getByTestId('loupe')).toHaveAttribute('data-asset-id', bigId!);
  await page.keyboard.press('g');
  await expect(page.getByTestId('grid')).toBeVisible();

  // N on the 24 MP frame: it has no similar frames, and the app says so.
  await cell('big-24mp.jpg').click();
  await page.keyboard.press('n');
  await expect(page.getByText('This photo has no similar frames among the photos shown.')).toBeVisible();
  await expect(page.getByTestId('grid')).toBeVisible();

  // ---- Survey (N) of a group: one frame of the burst selected, N shows its four frames -------
  await cell('burst-1.jpg').click();
  await expect(page.getByTestId('selection-summary')).toHaveText('1 selected');
  await page.keyboard.press('n');
  const survey = page.getByTestId('survey');
  const surveyCells = page.getByTestId('survey-cell');
  await expect(surveyCells).toHaveCount(4);
  await expect(survey).toHaveAttribute('data-columns', '2');
  await expect(page.getByTestId('survey-group')).toContainText('a burst');
  // The suggested best frame (the sharpest: no quality score measured) is marked, and only it.
  await expect(page.getByTestId('survey-best')).toHaveCount(1);
  await expect(page.locator('[data-testid="survey-cell"]:has([data-testid="survey-best"])')).toHaveAttribute('data-name', 'burst-2.jpg');
  await expectPicturesShown(page.getByTestId('survey-cell-zoom-fit'), 4);
  await shot(page, 'survey-fit');

  // One frame out of the survey (its ✕): it stays in the library.
  const surveyCell = (name: string) => page.locator(`[data-testid="survey-cell"][data-name="${name}"]`);
  await expect(surveyCell('burst-4.jpg')).toHaveCount(1);
  await surveyCell('burst-4.jpg').getByTestId('survey-remove').click();
  await expect(surveyCells).toHaveCount(3);
  await expect(page.getByTestId('survey-count')).toHaveText('3 photos');

  // Z: every frame at 100 %, each drawn at its own pixel size, all centred on the same place.
  await page.keyboard.press('z');
  const zooms = page.getByTestId('survey-cell-zoom');
  for (let i = 0; i < 3; i++) {
    await expect(zooms.nth(i)).toHaveAttribute('data-zoom', '100');
    await expect(zooms.nth(i)).toHaveAttribute('data-natural-width', String(W));
  }
  const before = await Promise.all([0, 1, 2].map((i) => placement(zooms.nth(i))));
  for (const p of before) expect([p.w, p.h]).toEqual([Math.round(W / dpr), Math.round(H / dpr)]);
  expect(new Set(before.map((p) => `${p.x},${p.y}`)).size).toBe(1);

  // A drag in one frame pans them all together.
  await drag(page, zooms.nth(0), -150, -90);
  const after = await Promise.all([0, 1, 2].map((i) => placement(zooms.nth(i))));
  for (let i = 0; i < 3; i++) expectMoved(after[i], before[i], -150, -90);
  expect(new Set(after.map((p) => `${p.x},${p.y}`)).size).toBe(1);
  await shot(page, 'survey-100');

  // Pick the sharp frame: a click makes it active (without toggling the zoom), P picks it, 5 rates it.
  await surveyCell('burst-2.jpg').click();
  await expect(surveyCell('burst-2.jpg')).toHaveAttribute('data-active', 'true');
  await expect(survey).toHaveAttribute('data-zoom', '100');
  await page.keyboard.press('p');
  await page.keyboard.press('5');
  await expect(surveyCell('burst-2.jpg')).toHaveAttribute('data-flag', 'pick');
  await expect(surveyCell('burst-2.jpg')).toHaveAttribute('data-rating', '5');
  await expect(surveyCell('burst-2.jpg').getByTestId('survey-cell-flag')).toHaveText('⚑ Picked');
  // Z back to fit for all.
  await page.keyboard.press('z');
  for (let i = 0; i < 3; i++) await expect(zooms.nth(i)).toHaveAttribute('data-zoom', 'fit');
  await expectPicturesShown(page.getByTestId('survey-cell-zoom-fit'), 3);
  await shot(page, 'survey-picked');
  const sharpId = Number(await surveyCell('burst-2.jpg').getAttribute('data-asset-id'));
  expect(Array.from(await api.searchIds({ query: { flag: 'pick' } }))).toEqual([sharpId]);
  expect((await api.getAsset({ id: sharpId })).rating).toBe(5);

  await page.keyboard.press('Escape');
  await expect(page.getByTestId('grid')).toBeVisible();
  await expect(cells).toHaveCount(5);

  // Survey of a selection: exactly the photos selected, in grid order.
  await cell('burst-3.jpg').click();
  await cell('big-24mp.jpg').click({ modifiers: ['Control'] });
  await page.getByTestId('view-survey').click();
  await expect(surveyCells).toHaveCount(2);
  await expect(surveyCells.nth(0)).toHaveAttribute('data-name', 'big-24mp.jpg');
  await expect(surveyCells.nth(1)).toHaveAttribute('data-name', 'burst-3.jpg');
  await expect(page.getByTestId('survey-best')).toHaveCount(0);
  await page.keyboard.press('g');
  await expect(page.getByTestId('grid')).toBeVisible();

  // ---- Compare (C): three frames selected, the focused one is the select ---------------------
  await cell('burst-1.jpg').click();
  await cell('burst-3.jpg').click({ modifiers: ['Control'] });
  await cell('burst-2.jpg').click({ modifiers: ['Control'] });
  await expect(page.getByTestId('selection-summary')).toHaveText('3 selected');
  await page.keyboard.press('c');
  const selectFrame = page.getByTestId('compare-select');
  const candidateFrame = page.getByTestId('compare-candidate');
  await expect(selectFrame).toHaveAttribute('data-name', 'burst-2.jpg');
  // The grid shows the newest first (burst-3, burst-2, burst-1): the candidate is the one after the select.
  await expect(candidateFrame).toHaveAttribute('data-name', 'burst-1.jpg');
  await expect(selectFrame).toHaveAttribute('data-flag', 'pick');
  await expectPicturesShown(page.getByTestId('compare').locator('img'), 2);

  // Locked: Z zooms both; a drag in the candidate pans the select too.
  await page.keyboard.press('z');
  const selectZoom = page.getByTestId('compare-select-zoom');
  const candidateZoom = page.getByTestId('compare-candidate-zoom');
  await expect(selectZoom).toHaveAttribute('data-zoom', '100');
  await expect(candidateZoom).toHaveAttribute('data-zoom', '100');
  const c0 = [await placement(selectZoom), await placement(candidateZoom)];
  expect([c0[0].x, c0[0].y]).toEqual([c0[1].x, c0[1].y]);
  await drag(page, candidateZoom, 180, -60);
  const c1 = [await placement(selectZoom), await placement(candidateZoom)];
  for (let i = 0; i < 2; i++) expectMoved(c1[i], c0[i], 180, -60);
  await shot(page, 'compare-100');

  // Unlocked: a drag in the select moves only the select.
  await page.getByTestId('compare-lock').click();
  await expect(page.getByTestId('compare-lock')).toHaveAttribute('aria-pressed', 'false');
  await drag(page, selectZoom, -100, 0);
  const c2 = [await placement(selectZoom), await placement(candidateZoom)];
  expectMoved(c2[0], c1[0], -100, 0);
  expectMoved(c2[1], c1[1], 0, 0);

  // ← / →: another candidate from the selection (never the select itself).
  await page.keyboard.press('ArrowRight'); // nothing after burst-1 in the selection
  await expect(candidateFrame).toHaveAttribute('data-name', 'burst-1.jpg');
  await page.keyboard.press('ArrowLeft'); // skips the select (burst-2)
  await expect(candidateFrame).toHaveAttribute('data-name', 'burst-3.jpg');
  const candidateName = (await candidateFrame.getAttribute('data-name'))!;
  const candidateId = Number(await candidateFrame.getAttribute('data-asset-id'));

  // Judge the candidate inside the view: it is active after the arrow; 3 stars, red, reject.
  await expect(page.getByTestId('compare')).toHaveAttribute('data-active-side', 'candidate');
  await page.keyboard.press('3');
  await page.keyboard.press('6');
  await page.keyboard.press('x');
  await expect(candidateFrame).toHaveAttribute('data-rating', '3');
  await expect(candidateFrame).toHaveAttribute('data-label', 'red');
  await expect(candidateFrame).toHaveAttribute('data-flag', 'reject');
  // The select was not touched.
  await expect(selectFrame).toHaveAttribute('data-flag', 'pick');
  await expect(selectFrame).toHaveAttribute('data-rating', '5');
  // Locked again, Z takes both back to fit. A press on the select makes it active; 4 rates it.
  await page.getByTestId('compare-lock').click();
  await expect(page.getByTestId('compare-lock')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('z');
  await expect(candidateZoom).toHaveAttribute('data-zoom', 'fit');
  await expect(selectZoom).toHaveAttribute('data-zoom', 'fit');
  await page.getByTestId('compare-select').locator('.judge-name').click();
  await expect(page.getByTestId('compare')).toHaveAttribute('data-active-side', 'select');
  await page.keyboard.press('4');
  await expect(selectFrame).toHaveAttribute('data-rating', '4');
  await expect(candidateFrame).toHaveAttribute('data-rating', '3');
  await expectPicturesShown(page.getByTestId('compare').locator('img'), 2);
  await shot(page, 'compare-judged');

  const judged = await api.getAsset({ id: candidateId });
  expect([judged.name, judged.rating, judged.label]).toEqual([candidateName, 3, 'red']);
  expect(Array.from(await api.searchIds({ query: { flag: 'reject' } }))).toEqual([candidateId]);
  // E: the active photo (the select) in the loupe; G back to the grid.
  const selectId = await selectFrame.getAttribute('data-asset-id');
  await page.keyboard.press('e');
  await expect(page.getByTestId('loupe')).toHaveAttribute('data-asset-id', selectId!);
  await page.keyboard.press('g');
  await expect(page.getByTestId('grid')).toBeVisible();
  await expect(cell(candidateName)).toHaveAttribute('data-label', 'red');
});
