import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { shot } from './shots';

// Issue 35, point 6: the loupe has what a Lightroom user reaches for first. A histogram of the
// photo shown and its capture details at the top of the panel; a filmstrip of the photo list
// under the stage (a click shows a photo, the arrows step, the one shown is outlined and kept in
// view); at 1:1 (Z or Space) a navigator with the part in view outlined, dragged to pan.

const exiftool = (...args: string[]) => execFileSync('exiftool', ['-q', '-overwrite_original', ...args]);

/** 24 photos, newest first by name: p00 is the newest. p00 is big (for 1:1), p01 records its exposure. */
async function makeFolder(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-loupe-e2e-'));
  for (let i = 0; i < 24; i++) {
    const name = `p${String(i).padStart(2, '0')}.jpg`;
    const big = i === 0;
    const width = big ? 3600 : 480;
    const height = big ? 2400 : 320;
    const hue = (i * 37) % 255;
    // Half a colour, half white: the histogram has something on both sides.
    const white = await sharp({ create: { width: width / 2, height, channels: 3, background: '#ffffff' } }).png().toBuffer();
    await sharp({ create: { width, height, channels: 3, background: { r: hue, g: 255 - hue, b: 90 }, noise: big ? { type: 'gaussian', mean: 100, sigma: 30 } : undefined } })
      .composite([{ input: white, left: width / 2, top: 0 }])
      .jpeg({ quality: 80 })
      .toFile(join(root, name));
    const day = String(28 - i).padStart(2, '0');
    const tags = [`-EXIF:DateTimeOriginal=2024:06:${day} 10:00:00`];
    if (i === 1) tags.push('-EXIF:Make=Canon', '-EXIF:Model=Canon EOS R5', '-EXIF:LensModel=RF24-70mm F2.8 L IS USM', '-EXIF:ISO=100', '-EXIF:FNumber=2.8', '-EXIF:ExposureTime=1/250', '-EXIF:FocalLength=50');
    exiftool(...tags, join(root, name));
  }
  return root;
}

test('loupe: histogram and capture details at the top of the panel, a filmstrip, a navigator at 1:1', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await api.addFolder({ path: await makeFolder() });
  await expect(page.getByTestId('grid-cell')).toHaveCount(24);
  await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
  const ids = new Map<string, number>();
  for (const id of await api.searchIds({ query: {} })) ids.set((await api.getAsset({ id })).name, id);

  // Open p01 (the second, newest first) in the loupe.
  await page.locator(`[data-testid="grid-cell"][data-asset-id="${ids.get('p01.jpg')}"]`).dblclick();
  const loupe = page.getByTestId('loupe');
  await expect(loupe).toHaveAttribute('data-asset-id', String(ids.get('p01.jpg')));

  // The panel: the histogram of the photo shown, and its capture details above the keywords.
  const histogram = page.getByTestId('histogram');
  await expect(histogram).toHaveAttribute('data-state', 'ready');
  await expect(histogram).toHaveAttribute('data-asset-id', String(ids.get('p01.jpg')));
  await expect(histogram.locator('[data-channel]')).toHaveCount(4);
  // Half of each photo is white: the clipped share is shown.
  await expect(page.getByTestId('histogram-highlights')).toHaveText(/^Clipped (4\d|5\d) %$/);
  await expect(page.getByTestId('capture-exposure')).toHaveText('ƒ/2.8 · 1/250 s · ISO 100');
  await expect(page.getByTestId('capture-camera')).toHaveText('Canon EOS R5 · RF24-70mm F2.8 L IS USM');
  const summaryBox = (await page.getByTestId('capture-summary').boundingBox())!;
  const keywordsBox = (await page.getByTestId('inspector').getByRole('heading', { name: 'Keywords' }).boundingBox())!;
  expect(summaryBox.y + summaryBox.height).toBeLessThanOrEqual(keywordsBox.y);
  // The Capture section lower down is not repeated in the loupe.
  await expect(page.getByTestId('inspector').getByRole('heading', { name: 'Capture' })).toHaveCount(0);

  // The filmstrip: the photo list, the one shown outlined.
  const strip = page.getByTestId('filmstrip');
  const current = strip.locator('[aria-current="true"]');
  await expect(current).toHaveAttribute('data-asset-id', String(ids.get('p01.jpg')));
  await shot(page, 'loupe-1440');
  expect(await lowContrast(page.getByTestId('inspector')), 'inspector').toEqual([]);
  expect(await lowContrast(page.locator('.loupe-caption')), 'loupe caption').toEqual([]);

  // A click on a frame shows that photo; the histogram and panel follow it.
  await strip.locator(`[data-asset-id="${ids.get('p04.jpg')}"]`).click();
  await expect(loupe).toHaveAttribute('data-asset-id', String(ids.get('p04.jpg')));
  await expect(current).toHaveAttribute('data-asset-id', String(ids.get('p04.jpg')));
  await expect(histogram).toHaveAttribute('data-asset-id', String(ids.get('p04.jpg')));
  await expect(page.getByTestId('inspector-name')).toHaveText('p04.jpg');

  // The arrows step through the list to its end; the frame shown stays inside the strip.
  for (let i = 5; i < 24; i++) {
    await page.keyboard.press('ArrowRight');
    await expect(current).toHaveAttribute('data-index', String(i));
  }
  await expect(loupe).toHaveAttribute('data-asset-id', String(ids.get('p23.jpg')));
  const stripBox = (await strip.boundingBox())!;
  const lastBox = (await current.boundingBox())!;
  expect(lastBox.x).toBeGreaterThanOrEqual(stripBox.x);
  expect(lastBox.x + lastBox.width).toBeLessThanOrEqual(stripBox.x + stripBox.width);
  // Back to the first, by a click on its frame after scrolling the strip home.
  await strip.evaluate((el) => (el.scrollLeft = 0));
  await strip.locator(`[data-asset-id="${ids.get('p00.jpg')}"]`).click();
  await expect(loupe).toHaveAttribute('data-asset-id', String(ids.get('p00.jpg')));

  // Space: 1:1, with the navigator; its outline is the part in view, smaller than the picture.
  const frame = page.getByTestId('loupe-zoom');
  await expect(page.getByTestId('loupe-img')).toBeVisible();
  await page.keyboard.press('Space');
  await expect(frame).toHaveAttribute('data-zoom', '100');
  const nav = page.getByTestId('loupe-zoom-navigator');
  const view = page.getByTestId('loupe-zoom-navigator-view');
  await expect(nav).toBeVisible();
  const navBox = (await nav.boundingBox())!;
  const viewBox = (await view.boundingBox())!;
  expect(viewBox.width).toBeLessThan(navBox.width * 0.9);
  expect(viewBox.height).toBeLessThan(navBox.height * 0.9);
  await shot(page, 'loupe-navigator-1440');

  // Drag the outline to the top-left corner: the picture shows its top-left corner.
  const full = page.getByTestId('loupe-zoom-full');
  const before = await full.evaluate((el) => (el as HTMLElement).style.transform);
  await page.mouse.move(viewBox.x + viewBox.width / 2, viewBox.y + viewBox.height / 2);
  await page.mouse.down();
  await page.mouse.move(navBox.x + 10, navBox.y + 10, { steps: 4 });
  await page.mouse.move(navBox.x + 1, navBox.y + 1, { steps: 2 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await view.boundingBox())!.x - navBox.x)).toBeLessThanOrEqual(2);
  await expect.poll(async () => Math.round((await view.boundingBox())!.y - navBox.y)).toBeLessThanOrEqual(2);
  await expect.poll(() => full.evaluate((el) => (el as HTMLElement).style.transform)).toBe('translate(0px, 0px)');
  expect(before).not.toBe('translate(0px, 0px)');
  // The press on the navigator did not toggle the zoom.
  await expect(frame).toHaveAttribute('data-zoom', '100');

  // Space again: fit, and the navigator is put away.
  await page.keyboard.press('Space');
  await expect(frame).toHaveAttribute('data-zoom', 'fit');
  await expect(nav).toHaveCount(0);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.keyboard.press('ArrowRight');
  await expect(loupe).toHaveAttribute('data-asset-id', String(ids.get('p01.jpg')));
  await expect(histogram).toHaveAttribute('data-asset-id', String(ids.get('p01.jpg')));
  await shot(page, 'loupe-1280');
});
