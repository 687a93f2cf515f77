import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { CredentialStore } from '../../src-main/credentials';
import { startSimulator } from '../simulator/index';
import { expect, test, type AppHandle } from './harness';
import { shotSizes } from './shots';

// Issue 15, end to end in the built app against the simulator: vectorize a library picture
// and find the SVG in the library (with its source linked); swap a face onto a portrait and
// find the result in the library. The face swap goes to the interface's /v1/imageswap.

const CLIENT_ID = 'e2e-swap';
const SECRET = `s3cret-${randomUUID()}`;

const card = (page: Page, kind: string) => page.locator(`[data-testid="task-card"][data-kind="${kind}"]`);

test('vectorize a library picture into an SVG asset; swap a face onto a portrait and into a video', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }], taskClock: { pendingMs: 300, startedMs: 400 } });
  let app: AppHandle | undefined;
  try {
    app = await launchApp({ api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) }, viewport: { width: 1440, height: 900 } });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    const photos = mkdtempSync(join(tmpdir(), 'tagsmith-swap-'));
    await sharp({ create: { width: 480, height: 320, channels: 3, background: '#2f6fe0' } })
      .composite([{ input: { create: { width: 160, height: 160, channels: 3, background: '#f0c030' } }, left: 160, top: 80 }]).png().toFile(join(photos, 'logo-sun.png'));
    await sharp({ create: { width: 300, height: 400, channels: 3, background: '#c08060' } })
      .composite([{ input: { create: { width: 90, height: 120, channels: 3, background: '#ff00ff' } }, left: 105, top: 90 }]).jpeg().toFile(join(photos, 'donor-face.jpg'));
    await sharp({ create: { width: 600, height: 800, channels: 3, background: '#3b4654' } })
      .composite([{ input: { create: { width: 220, height: 280, channels: 3, background: '#d9a888' } }, left: 190, top: 200 }]).jpeg().toFile(join(photos, 'portrait-ben.jpg'));
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x3b4654:size=320x240:rate=10:duration=2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', join(photos, 'street-clip.mp4')]);
    await api.addFolder({ path: photos });
    await expect(page.getByTestId('grid-cell')).toHaveCount(4);

    // ---- Vectorize --------------------------------------------------------------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-vectorize').click();
    const vec = page.getByTestId('panel-vectorize');
    await expect(vec.getByTestId('vectorize-unspecified')).toContainText('nothing to adjust');
    await expect(vec).not.toContainText(/\/v1\/|OpenAPI|vendor|image_url/);
    await expect(vec.getByTestId('vectorize-start')).toBeDisabled();
    await vec.getByTestId('vectorize-source-choose').click();
    await page.getByTestId('asset-picker').locator('[data-testid="picker-item"][data-name="logo-sun.png"]').click();
    await expect(vec.getByTestId('vectorize-source')).not.toHaveAttribute('data-asset-id', '');
    // Looked at as a Lightroom user would, at both window sizes (issue 35).
    await shotSizes(page, 'create-vectorize-form');
    await vec.getByTestId('vectorize-start').click();
    const vcard = card(page, 'vectorize').first();
    await expect(vcard.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await vcard.getByTestId('task-open').click();
    await expect(page.locator('.app')).toHaveAttribute('data-view', 'library');
    await expect(page.getByTestId('inspector-name')).toHaveText(/\.svg$/i);
    const prov = page.getByTestId('provenance');
    await expect(prov).toBeVisible();
    await expect(prov.locator('[data-testid="provenance-source"]', { hasText: 'logo-sun.png' })).toBeVisible();
    const svgs = await api.search({ query: { kinds: ['image'], text: 'vectorize' }, page: { offset: 0, limit: 10 } });
    expect(svgs.items.some((a) => a.name.endsWith('.svg'))).toBe(true);

    // ---- Face swap onto the portrait --------------------------------------------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-faceswap').click();
    const swap = page.getByTestId('panel-faceswap');
    await swap.getByTestId('swap-donor-choose').click();
    await page.getByTestId('asset-picker').locator('[data-testid="picker-item"][data-name="donor-face.jpg"]').click();
    await swap.getByTestId('swap-target-choose').click();
    await page.getByTestId('asset-picker').locator('[data-testid="picker-item"][data-name="portrait-ben.jpg"]').click();
    await expect(swap.getByTestId('swap-video-note')).toHaveCount(0);
    await swap.getByTestId('swap-start').click();
    const scard = card(page, 'faceSwap').first();
    await expect(scard.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await scard.getByTestId('task-open').click();
    await expect(page.getByTestId('inspector-name')).toHaveText(/\.png$/i);
    const sprov = page.getByTestId('provenance');
    await expect(sprov.locator('[data-testid="provenance-source"]', { hasText: 'portrait-ben.jpg' })).toBeVisible();
    await expect(sprov.locator('[data-testid="provenance-source"]', { hasText: 'donor-face.jpg' })).toBeVisible();
    expect(sim.log.some((e) => e.path === '/v1/imageswap' && e.status === 200)).toBe(true);
    // 3 pictures + the SVG + the swapped portrait
    await expect.poll(async () => (await api.search({ query: { kinds: ['image'] }, page: { offset: 0, limit: 20 } })).total).toBe(5);

    // ---- Video face swap: the same panel with a video target ----------------------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-faceswap').click();
    await swap.getByTestId('swap-target-change').click();
    await page.getByTestId('asset-picker').locator('[data-testid="picker-item"][data-name="street-clip.mp4"]').click();
    await expect(swap.getByTestId('swap-video-note')).toContainText('video face swap');
    await expect(swap).not.toContainText(/\/v1\/|OpenAPI|vendor|endpoint|GFPGAN/);
    await swap.getByTestId('swap-start').click();
    const vcardSwap = card(page, 'faceSwap').first();
    await expect(vcardSwap.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await expect(vcardSwap.getByTestId('task-video')).toBeVisible();
    expect(sim.log.some((e) => e.path === '/v1/videoswap/create' && e.status === 200)).toBe(true);
    await expect.poll(async () => (await api.search({ query: { kinds: ['video'] }, page: { offset: 0, limit: 20 } })).total).toBe(2);
  } finally {
    await app?.close();
    await sim.close();
  }
});
