import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { CredentialStore } from '../../src-main/credentials';
import { startSimulator } from '../simulator/index';
import { expect, test } from './harness';
import { shot } from './shots';

// Issue 5's proof, end to end: the built renderer driving the REAL Api (queue, analysis
// runs, culling) against the loopback simulator. A folder is scored through Analyse…, the
// histogram's threshold is dragged, everything below it rejected and the rejection undone;
// the faces and colour filters return exactly the right files; the loupe's face box sits
// over the magenta "face".

const CLIENT_ID = 'e2e-analysis';
const SECRET = `s3cret-${randomUUID()}`;
const W = 600;
const H = 400;
/** The simulator's face: a pure magenta block; a yellow square inside makes it a child. */
const FACE: [number, number, number, number] = [330, 90, 470, 250];

/** Checker blocks: sharp edges everywhere (a high simulated quality), or blurred into mush. */
function checker(a: string, b: string, block = 8): string {
  const cells: string[] = [];
  for (let y = 0; y < H / block; y++) for (let x = 0; x < W / block; x++) if ((x + y) % 2) cells.push(`<rect x="${x * block}" y="${y * block}" width="${block}" height="${block}" fill="${b}"/>`);
  return `<rect width="${W}" height="${H}" fill="${a}"/>${cells.join('')}`;
}

interface Spec {
  name: string;
  body: string;
  blur?: number;
}

const face = (child: boolean) =>
  `<rect x="${FACE[0]}" y="${FACE[1]}" width="${FACE[2] - FACE[0]}" height="${FACE[3] - FACE[1]}" fill="#ff00ff"/>` +
  (child ? `<rect x="${(FACE[0] + FACE[2]) / 2 - 15}" y="${(FACE[1] + FACE[3]) / 2 - 15}" width="30" height="30" fill="#ffff00"/>` : '');

const PHOTOS: Spec[] = [
  { name: 'crisp-1.jpg', body: checker('#5a5a5a', '#a8a8a8') },
  { name: 'crisp-2.jpg', body: checker('#6a6050', '#b0a890', 6) },
  { name: 'soft-1.jpg', body: checker('#5a5a5a', '#a8a8a8'), blur: 8 },
  { name: 'soft-2.jpg', body: checker('#50606a', '#90a8b0', 6), blur: 10 },
  { name: 'face-adult.jpg', body: checker('#4a4a4a', '#8a8a8a') + face(false) },
  { name: 'face-child.jpg', body: checker('#4a4a4a', '#8a8a8a') + face(true) },
  { name: 'mostly-blue.jpg', body: `<rect width="${W}" height="${H}" fill="#2F5FD0"/><rect x="40" y="300" width="120" height="60" fill="#e8e8e8"/>` },
  { name: 'mostly-red.jpg', body: `<rect width="${W}" height="${H}" fill="#D0312D"/><rect x="440" y="40" width="120" height="60" fill="#202020"/>` },
];

async function makeFolder(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-analysis-'));
  for (const p of PHOTOS) {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${p.body}</svg>`);
    let img = sharp(svg);
    if (p.blur) img = sharp(await img.png().toBuffer()).blur(p.blur);
    await img.jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).toFile(join(root, p.name));
  }
  return root;
}


async function gridNames(page: Page): Promise<string[]> {
  return (await page.getByTestId('grid-cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-name') ?? ''))).sort();
}

async function flagged(page: Page, flag: 'pick' | 'reject'): Promise<string[]> {
  return (await page.locator(`[data-testid="grid-cell"]:has([data-testid="cell-flag"][data-flag="${flag}"])`).evaluateAll((els) => els.map((e) => e.getAttribute('data-name') ?? ''))).sort();
}

/** The face box against the picture's rendered box × the magenta block's fractions. */
async function expectBoxOnFace(page: Page, imgTestId: string): Promise<void> {
  const img = page.getByTestId(imgTestId);
  const box = page.getByTestId('face-box').first();
  await expect(box).toBeVisible();
  await expect
    .poll(async () => {
      const r = await img.evaluate((el) => {
        const b = el.getBoundingClientRect();
        return { x: b.x, y: b.y, w: b.width, h: b.height };
      });
      const f = (await box.boundingBox())!;
      const want = { x: r.x + (FACE[0] / W) * r.w, y: r.y + (FACE[1] / H) * r.h, w: ((FACE[2] - FACE[0]) / W) * r.w, h: ((FACE[3] - FACE[1]) / H) * r.h };
      return Math.max(Math.abs(f.x - want.x), Math.abs(f.y - want.y), Math.abs(f.width - want.w), Math.abs(f.height - want.h));
    }, { message: 'face box over the magenta block, within 4 px' })
    .toBeLessThan(4);
}

test('score a folder, drag the threshold, reject below it, undo; filter by faces and colour; face boxes on the loupe; culling', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }] });
  try {
    const app = await launchApp({ api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) }, viewport: { width: 1440, height: 900 } });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    await api.setCaps({ caps: { dailyCalls: 5000, monthlyCalls: 100000, pricePerCall: { quality: 0.001, quality_ugc: 0.001, faces: 0.002, keywords: 0.002 } } });
    const root = await makeFolder();
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);

    // ---- Analyse…: four measurements, the billable preview, then the queue ----------------
    await page.getByTestId('grid-cell').first().click();
    await page.keyboard.press('Control+a');
    await expect(page.getByTestId('selection-summary')).toHaveText(`${PHOTOS.length} selected`);
    await page.getByTestId('action-analyse').click();
    const dialog = page.getByTestId('analyse-dialog');
    await expect(dialog).toBeVisible();
    for (const k of ['quality', 'qualityUgc', 'faces', 'colors']) {
      const box = dialog.getByTestId(`analyse-check-${k}`);
      if (!(await box.isChecked())) await box.check();
    }
    const preview = dialog.getByTestId('analyse-preview');
    await expect(preview).toHaveAttribute('data-billable', String(PHOTOS.length * 4));
    await expect(preview).toHaveAttribute('data-fits', 'true');
    await expect(dialog.getByTestId('analyse-billable-faces')).toHaveAttribute('data-billable', String(PHOTOS.length));
    await expect(preview).toContainText('Est. cost $0.048');
    await shot(page, 'analysis-dialog', dialog);
    await dialog.getByTestId('analyse-confirm').click();
    await expect(dialog).toHaveCount(0);
    const progress = page.getByTestId('analysis-progress');
    // As long as the service takes for 128 answers: only the test's own safety net bounds it.
    await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 0 });
    await expect(progress).toHaveAttribute('data-done', String(PHOTOS.length * 4));
    expect(sim.billed()[CLIENT_ID]).toMatchObject({ quality: PHOTOS.length, quality_ugc: PHOTOS.length, faces: PHOTOS.length });

    // Scores as the main side stored them: the threshold goes in the widest gap between them.
    const ids = Array.from(await api.searchIds({ query: { sort: 'name', order: 'asc' } }));
    const scored = await Promise.all(ids.map(async (id) => ({ name: (await api.getAsset({ id })).name, score: (await api.getAssetAnalysis({ id })).quality!.score })));
    scored.sort((a, b) => a.score - b.score);
    let gap = 1;
    for (let i = 2; i < scored.length; i++) if (scored[i].score - scored[i - 1].score > scored[gap].score - scored[gap - 1].score) gap = i;
    const cut = Math.round(((scored[gap - 1].score + scored[gap].score) / 2) * 100);
    const expectedRejects = scored.filter((s) => s.score < cut / 100).map((s) => s.name).sort();
    expect(expectedRejects.length).toBeGreaterThan(0);
    expect(expectedRejects).toContain('soft-1.jpg');
    expect(expectedRejects).not.toContain('crisp-1.jpg');

    // ---- The histogram: drag the threshold, reject below it, undo ------------------------
    const hist = page.getByTestId('quality-histogram');
    const chart = hist.getByTestId('histogram-chart');
    await expect(hist.getByTestId('histogram-summary')).toContainText(`${PHOTOS.length} scored`);
    const cb = (await chart.boundingBox())!;
    await page.mouse.move(cb.x + cb.width * 0.9, cb.y + cb.height / 2);
    await page.mouse.down();
    await page.mouse.move(cb.x + cb.width * 0.5, cb.y + cb.height / 2, { steps: 4 });
    await page.mouse.move(cb.x + (cb.width * cut) / 100 + 0.5, cb.y + cb.height / 2, { steps: 4 });
    await page.mouse.up();
    await expect(chart).toHaveAttribute('data-threshold', String(cut));
    await expect(hist.getByTestId('histogram-summary')).toContainText(`${expectedRejects.length} below ${cut}%`);
    await shot(page, 'analysis-histogram', hist);
    await hist.getByTestId('reject-below').click();
    await expect.poll(() => flagged(page, 'reject')).toEqual(expectedRejects);
    await shot(page, 'analysis-rejected');
    await page.keyboard.press('Control+z');
    await expect.poll(() => flagged(page, 'reject')).toEqual([]);

    // ---- Filters: faces, a child, a colour — each exactly the right files -----------------
    await page.getByTestId('filters-more-toggle').click();
    const filters = page.getByTestId('analysis-filters');
    await filters.getByTestId('filter-faces-yes').click();
    await expect.poll(() => gridNames(page)).toEqual(['face-adult.jpg', 'face-child.jpg']);
    await filters.getByTestId('filter-child').check();
    await expect.poll(() => gridNames(page)).toEqual(['face-child.jpg']);
    await filters.getByTestId('clear-analysis-filters').click();
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);
    await filters.getByTestId('filter-color-blue').click();
    await expect.poll(() => gridNames(page)).toEqual(['mostly-blue.jpg']);
    await filters.getByTestId('filter-color-hex').fill('#D0312D');
    await filters.getByTestId('filter-color-hex').press('Enter');
    await expect.poll(() => gridNames(page)).toEqual(['mostly-red.jpg']);
    await filters.getByTestId('clear-analysis-filters').click();
    await expect(page.getByTestId('grid-cell')).toHaveCount(PHOTOS.length);

    // ---- Inspector measurements and the loupe's face boxes --------------------------------
    await page.locator('[data-testid="grid-cell"][data-name="face-child.jpg"]').click();
    const measurements = page.getByTestId('measurements');
    await expect(measurements.getByTestId('measure-quality-value')).toHaveText(/^\d+%$/);
    await expect(measurements.getByTestId('measure-ugc-value')).toHaveText(/^\d+% · (Very bad|Poor|Normal|Good|Excellent)$/);
    await expect(measurements.getByTestId('face-row')).toHaveCount(1);
    await expect(measurements.getByTestId('face-row')).toContainText('Child');
    await expect(measurements.getByTestId('release-needed')).toContainText('a model release is likely needed');
    await expect(measurements.getByTestId('swatch').first()).toBeVisible();
    await expect(measurements).toContainText('Analysed today');
    await measurements.scrollIntoViewIfNeeded();
    await shot(page, 'analysis-inspector', measurements);

    await page.locator('[data-testid="grid-cell"][data-name="face-adult.jpg"]').dblclick();
    await expect(page.getByTestId('loupe-img')).toBeVisible();
    await expectBoxOnFace(page, 'loupe-img');
    await shot(page, 'analysis-face-boxes');
    await page.setViewportSize({ width: 1100, height: 700 });
    await expectBoxOnFace(page, 'loupe-img');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press('g');

    // ---- Culling: worst first, X rejects (and advances), Ctrl+Z undoes ---------------------
    await page.getByTestId('toggle-scores').check();
    await expect(page.getByTestId('cell-score')).toHaveCount(PHOTOS.length);
    await shot(page, 'analysis-grid-scores');
    await page.getByTestId('action-cull').click();
    const cull = page.getByTestId('cull');
    await expect(cull).toBeVisible();
    await cull.getByTestId('cull-worst').click();
    await expect(page.getByTestId('cull-position')).toHaveText(`1 / ${PHOTOS.length}`);
    const worstId = Number(await cull.getAttribute('data-asset-id'));
    expect((await api.getAsset({ id: worstId })).name).toBe(scored[0].name);
    await page.keyboard.press('x');
    await expect(page.getByTestId('cull-position')).toHaveText(`2 / ${PHOTOS.length}`);
    await page.keyboard.press('p');
    await expect(page.getByTestId('cull-position')).toHaveText(`3 / ${PHOTOS.length}`);
    await page.keyboard.press('ArrowLeft');
    await expect(cull).toHaveAttribute('data-flag', 'pick');
    await expect(cull.getByTestId('cull-img')).toHaveCount(1);
    await shot(page, 'analysis-culling');
    await expect.poll(async () => (await api.searchIds({ query: { flag: 'reject' } })).length).toBe(1);
    await page.keyboard.press('Control+z');
    await expect(cull).toHaveAttribute('data-flag', 'none');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('grid')).toBeVisible();
    await expect.poll(() => flagged(page, 'reject')).toEqual([scored[0].name]);
  } finally {
    await sim.close();
  }
});
