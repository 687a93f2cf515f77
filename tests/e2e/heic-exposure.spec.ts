import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { heifEnc, markedPicture, withIrot } from '../fixtures/heif';
import { expect, test, type AppHandle } from './harness';

// An iPhone-like HEIC (HEVC, irot and EXIF Orientation 6, exposure in EXIF) beside two
// JPEGs: its thumbnail and its loupe picture show, upright; the loupe's info overlay (I)
// shows how each photo was exposed; the filter panel narrows the grid by ISO range.

const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

const cells = (page: Page) => page.getByTestId('grid-cell');
const cell = (page: Page, name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);
const exiftool = (...args: string[]) => execFileSync('exiftool', ['-q', '-overwrite_original', ...args]);

async function makeFolder(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-heic-e2e-'));
  const src = mkdtempSync(join(tmpdir(), 'tagsmith-heic-src-'));
  // The HEIC: a landscape picture turned a quarter clockwise by irot (400 x 600 displayed).
  await markedPicture(join(src, 'marked.jpg'), 1200, 800);
  copyFileSync(join(src, 'marked.jpg'), join(src, 'marked-6.jpg'));
  exiftool('-EXIF:Orientation#=6', join(src, 'marked-6.jpg'));
  const heic = join(root, 'IMG_0042.HEIC');
  await heifEnc(heic, join(src, 'marked-6.jpg'));
  await withIrot(heic, 3);
  exiftool('-EXIF:Make=Apple', '-EXIF:Model=iPhone 13', '-EXIF:LensModel=iPhone 13 back camera 5.1mm f/1.6', '-EXIF:ISO=1600', '-EXIF:FNumber=1.6',
    '-EXIF:ExposureTime=1/120', '-EXIF:FocalLength=5.1', '-EXIF:FocalLengthIn35mmFormat=26', '-EXIF:Flash#=16', '-EXIF:DateTimeOriginal=2024:07:01 20:15:00', heic);
  const jpeg = async (name: string, colour: string, tags: string[]) => {
    const f = join(root, name);
    await sharp({ create: { width: 600, height: 400, channels: 3, background: colour } }).jpeg().withMetadata({ orientation: 1 }).toFile(f);
    exiftool(...tags, f);
  };
  await jpeg('portrait.jpg', '#c08040', ['-EXIF:ISO=100', '-EXIF:FNumber=2.8', '-EXIF:ExposureTime=1/250', '-EXIF:FocalLength=85', '-EXIF:ExposureCompensation=+0.7', '-EXIF:DateTimeOriginal=2024:06:01 10:00:00']);
  await jpeg('night.jpg', '#203050', ['-EXIF:ISO=6400', '-EXIF:FNumber=1.4', '-EXIF:ExposureTime=2.5', '-EXIF:FocalLength=24', '-EXIF:DateTimeOriginal=2024:05:01 23:00:00']);
  return root;
}

async function addFolder(app: AppHandle, root: string, expected: number): Promise<void> {
  const { page } = app;
  if (!(await page.getByTestId('add-folder-path').isVisible())) await page.getByTestId('add-folder').click();
  await page.getByTestId('add-folder-path').fill(root);
  await page.getByTestId('add-folder-submit').click();
  await expect(page.getByTestId('result-count')).toHaveAttribute('data-total', String(expected));
  await expect(cells(page)).toHaveCount(expected);
}

/** Natural size of a decoded <img>, or null while it has not decoded. */
function imgSize(page: Page, selector: string): Promise<[number, number] | null> {
  return page.$eval(selector, (el) => {
    const img = el as HTMLImageElement;
    return img.complete && img.naturalWidth > 0 ? ([img.naturalWidth, img.naturalHeight] as [number, number]) : null;
  }).catch(() => null);
}

test('a HEIC photo shows its thumbnail and loupe picture; I shows exposure; the grid filters by ISO range', async ({ launchApp }) => {
  const app = await launchApp();
  const { page } = app;
  await addFolder(app, await makeFolder(), 3);

  // The HEIC's thumbnail decodes in the grid, upright (portrait).
  const thumb = `[data-testid="grid-cell"][data-name="IMG_0042.HEIC"] [data-testid="thumb-img"]`;
  await expect.poll(() => imgSize(page, thumb)).not.toBeNull();
  const [tw, th] = (await imgSize(page, thumb))!;
  expect(th).toBeGreaterThan(tw);

  // The inspector says how it was exposed.
  await cell(page, 'IMG_0042.HEIC').click();
  await expect(page.getByTestId('inspector-exposure')).toHaveText('ƒ/1.6 · 1/120 s · ISO 1600');

  // The loupe shows the large preview made from the HEIC (800 x 1200 displayed: 2048 px cap not reached).
  await page.keyboard.press('e');
  const loupeImg = '[data-testid="loupe-img"]';
  await expect.poll(() => imgSize(page, loupeImg)).toEqual([800, 1200]);
  await expect(page.getByTestId('loupe-info')).toHaveCount(0);

  // I: the info overlay, Lightroom's way; it stays on while stepping to the next photo.
  await page.keyboard.press('i');
  const info = page.getByTestId('loupe-info');
  await expect(info).toContainText('IMG_0042.HEIC');
  await expect(info).toContainText('iPhone 13');
  await expect(info).toContainText('ƒ/1.6 · 1/120 s · ISO 1600');
  await expect(info).toContainText('5.1 mm (26 mm equiv.)');
  await expect(info).toContainText('No flash');
  await page.screenshot({ path: `${SCREENS}/loupe-info-heic.png` });
  await page.keyboard.press('ArrowRight');
  await expect(info).toContainText('portrait.jpg');
  await expect(info).toContainText('ƒ/2.8 · 1/250 s · ISO 100');
  await expect(info).toContainText('+0.7 EV');
  await page.keyboard.press('i');
  await expect(page.getByTestId('loupe-info')).toHaveCount(0);

  // Back to the grid: ISO 800 and up, then up to 3200.
  await page.keyboard.press('g');
  await page.getByTestId('filters-more-toggle').click();
  await page.getByTestId('filter-iso-min').fill('800');
  await expect(cells(page)).toHaveCount(2);
  await expect(cell(page, 'portrait.jpg')).toHaveCount(0);
  await page.getByTestId('filter-iso-max').fill('3200');
  await expect(cells(page)).toHaveCount(1);
  await expect(cell(page, 'IMG_0042.HEIC')).toBeVisible();
  await page.getByTestId('filter-iso-min').fill('');
  await expect(cells(page)).toHaveCount(2);
  await expect(cell(page, 'night.jpg')).toHaveCount(0);
  await page.screenshot({ path: `${SCREENS}/filter-iso.png` });
});
