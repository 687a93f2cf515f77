import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { BURST_EDITS, frame } from '../fixtures/bursts';
import { expect, test } from './harness';
import { shot } from './shots';

// Issue 17 in the grid, as a Lightroom user works: similar groups fold like stacks (one
// picture per burst or scene, its count on a badge; the badge or S opens and closes it), the
// "In similar groups" / "Bursts only" filter, and "Find similar" from a photo's context menu
// as a temporary ranked view left with Escape. Real generated bursts, real scan.

async function write(path: string, seed: number, edits: (typeof BURST_EDITS)[number], taken: string | null): Promise<void> {
  const img = sharp(await frame(seed, edits));
  await (taken ? img.withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' }, IFD2: { DateTimeOriginal: taken } }) : img).jpeg({ quality: 90 }).toFile(path);
}

test('fold similar groups and open them, filter by them, find similar and go back', async ({ launchApp }) => {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-similar-grid-'));
  mkdirSync(join(root, 'exports'));
  // Burst A (4 frames), burst B (3), one picture exported twice (same scene, years apart:
  // similar, not a burst), and two photos of other scenes shot in burst A's second.
  for (let i = 0; i < 4; i++) await write(join(root, `A_${i + 1}.jpg`), 41, BURST_EDITS[i], `2024:06:01 09:00:0${i}`);
  for (let i = 0; i < 3; i++) await write(join(root, `B_${i + 1}.jpg`), 42, BURST_EDITS[i], `2024:06:01 12:00:0${i}`);
  await write(join(root, 'exports', 'harbour.jpg'), 43, [], '2019:08:10 18:00:00');
  await sharp(await frame(43)).resize(640).jpeg({ quality: 80 }).toFile(join(root, 'exports', 'harbour_small.jpg'));
  await write(join(root, 'S_44.jpg'), 44, BURST_EDITS[0], '2024:06:01 09:00:02');
  await write(join(root, 'S_45.jpg'), 45, BURST_EDITS[0], '2024:06:01 09:00:02');

  const { page, api } = await launchApp();
  await api.addFolder({ path: root });
  const grid = page.getByTestId('grid');
  await expect(grid).toHaveAttribute('data-total', '11');
  await expect(page.getByTestId('scan-progress')).toHaveCount(0, { timeout: 0 });
  const cell = (name: string) => page.locator(`[data-testid="grid-cell"][data-name="${name}"]`);

  // ---- Fold groups: 3 groups as one picture each, plus the 2 photos in no group ----
  await page.getByTestId('toggle-fold-groups').check();
  await expect(grid).toHaveAttribute('data-total', '5');
  const badges = page.getByTestId('group-badge');
  await expect(badges).toHaveCount(3);
  const sizes = (await badges.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-size'))))).sort();
  expect(sizes).toEqual([2, 3, 4]);
  await expect(cell('S_44.jpg')).toBeVisible();
  await expect(cell('S_44.jpg').getByTestId('group-badge')).toHaveCount(0);
  await shot(page, 'similar-folded');

  // The badge opens burst A: its four frames are listed, each marked as open.
  const badgeA = page.locator('[data-testid="group-badge"][data-size="4"]');
  await badgeA.click();
  await expect(grid).toHaveAttribute('data-total', '8');
  for (let i = 1; i <= 4; i++) await expect(cell(`A_${i}.jpg`).getByTestId('group-badge')).toHaveAttribute('data-state', 'open');
  // S on one of its frames closes it again (Lightroom's stack toggle).
  await cell('A_3.jpg').click();
  await page.keyboard.press('s');
  await expect(grid).toHaveAttribute('data-total', '5');
  await expect(page.locator('[data-testid="group-badge"][data-size="4"]')).toHaveAttribute('data-state', 'folded');
  // And S on the folded picture opens it.
  await page.locator('[data-testid="grid-cell"]', { has: page.locator('[data-testid="group-badge"][data-size="3"]') }).click();
  await page.keyboard.press('s');
  await expect(grid).toHaveAttribute('data-total', '7');
  for (let i = 1; i <= 3; i++) await expect(cell(`B_${i}.jpg`)).toBeVisible();

  // ---- The filter: only photos in a group; bursts only ----
  await page.getByTestId('toggle-fold-groups').uncheck();
  await expect(grid).toHaveAttribute('data-total', '11');
  await page.getByTestId('filters-more-toggle').click();
  await page.getByTestId('filter-similar-groups').check();
  await expect(grid).toHaveAttribute('data-total', '9');
  await expect(cell('S_44.jpg')).toHaveCount(0);
  await page.getByTestId('filter-bursts').check();
  await expect(grid).toHaveAttribute('data-total', '7');
  await expect(cell('harbour.jpg')).toHaveCount(0);
  await page.getByTestId('filter-similar-groups').uncheck();
  await expect(grid).toHaveAttribute('data-total', '11');

  // ---- Find similar: from the context menu, ranked nearest first, Escape goes back ----
  // (The menu closes on a press elsewhere, here on another photo.)
  await cell('A_1.jpg').click({ button: 'right' });
  await expect(page.getByTestId('grid-menu')).toBeVisible();
  await cell('A_2.jpg').click();
  await expect(page.getByTestId('grid-menu')).toHaveCount(0);
  await cell('A_1.jpg').click({ button: 'right' });
  await page.getByTestId('menu-find-similar').click();
  await expect(page.getByTestId('similar-title')).toHaveText('Similar to A_1.jpg');
  const items = page.getByTestId('similar-item');
  await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3);
  const ranked = await items.evaluateAll((els) => els.map((e) => ({ name: e.getAttribute('data-name'), distance: Number(e.getAttribute('data-distance')) })));
  expect(ranked.slice(0, 3).map((r) => r.name).sort()).toEqual(['A_2.jpg', 'A_3.jpg', 'A_4.jpg']);
  for (let i = 1; i < ranked.length; i++) expect(ranked[i].distance).toBeGreaterThanOrEqual(ranked[i - 1].distance);
  expect(ranked.map((r) => r.name)).not.toContain('A_1.jpg');
  await shot(page, 'similar-find');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('similar-view')).toHaveCount(0);
  await expect(grid).toHaveAttribute('data-total', '11');
  await expect(cell('A_1.jpg')).toHaveAttribute('data-selected', 'true');

  // ---- Find similar from the loupe (Lightroom users live there): the caption's button,
  // the photo's right-click menu and Shift+F open the same ranked view; Escape returns to the loupe ----
  const loupe = page.getByTestId('loupe');
  const rankedNames = async () => {
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(2);
    return items.evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
  };
  await cell('B_2.jpg').click();
  await page.keyboard.press('e');
  await expect(loupe).toBeVisible();
  const b2 = await loupe.getAttribute('data-asset-id');
  await page.getByTestId('loupe-find-similar').click();
  await expect(page.getByTestId('similar-title')).toHaveText('Similar to B_2.jpg');
  expect((await rankedNames()).slice(0, 2).sort()).toEqual(['B_1.jpg', 'B_3.jpg']);
  await shot(page, 'similar-from-loupe');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('similar-view')).toHaveCount(0);
  await expect(loupe).toHaveAttribute('data-asset-id', b2!);

  // The right-click menu on the photo in the loupe.
  await page.getByTestId('loupe').locator('.loupe-stage').click({ button: 'right' });
  await page.getByTestId('menu-find-similar').click();
  await expect(page.getByTestId('similar-title')).toHaveText('Similar to B_2.jpg');
  expect((await rankedNames()).slice(0, 2).sort()).toEqual(['B_1.jpg', 'B_3.jpg']);
  await page.getByTestId('similar-back').click();
  await expect(loupe).toHaveAttribute('data-asset-id', b2!);

  // Shift+F after stepping to the next photo in the loupe: similar to that one.
  await page.keyboard.press('ArrowRight');
  await expect(loupe).not.toHaveAttribute('data-asset-id', b2!);
  const nextName = await page.locator('.loupe-name').textContent();
  // The neighbour in capture order (either way) is another frame of burst B.
  expect(nextName).toMatch(/^B_[13]\.jpg$/);
  await page.keyboard.press('Shift+F');
  await expect(page.getByTestId('similar-title')).toHaveText(`Similar to ${nextName}`);
  expect((await rankedNames()).slice(0, 2).sort()).toEqual(['B_1.jpg', 'B_2.jpg', 'B_3.jpg'].filter((n) => n !== nextName));
  await page.keyboard.press('Escape');
  await expect(loupe).toBeVisible();
});
