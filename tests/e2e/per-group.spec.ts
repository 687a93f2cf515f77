import { mkdtempSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { CredentialStore } from '../../src-main/credentials';
import { startSimulator } from '../simulator/index';
import { BURST_EDITS, frame, writeBurst } from '../fixtures/bursts';
import { expect, test, type AppHandle } from './harness';

// Issue 17, pay per scene, end to end: a burst of three frames and one other photo are
// keyworded with "One call per similar group": the dialog shows the saving, the simulator
// bills two calls, and in Review the burst's other frames show the suggestions they received
// marked "from <representative>", pending until the user accepts one.

const CLIENT_ID = 'e2e-per-group';
const SECRET = `s3cret-${randomUUID()}`;

test('keyword per similar group: one billed call per group, members review what they received', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }] });
  let app: AppHandle | undefined;
  try {
    const root = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-per-group-'));
    const burst = (await writeBurst(root, 41, 'IMG_00', 3)).map((f) => f.path);
    const other = join(root, 'IMG_0099.jpg');
    await sharp(await frame(42, BURST_EDITS[0])).toFile(other);
    const et = new ExifTool({ maxProcs: 1 });
    try {
      for (const [i, p] of [...burst, other].entries()) {
        await et.write(p, { 'EXIF:DateTimeOriginal': `2024:07:01 08:00:0${i}` } as never, { writeArgs: ['-overwrite_original'] });
      }
    } finally {
      await et.end();
    }

    app = await launchApp({ api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) }, viewport: { width: 1440, height: 900 } });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    await api.setCaps({ caps: { dailyCalls: 5000, monthlyCalls: 100000, pricePerCall: { keywords: 0.002 } } });
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(4);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);

    await page.getByTestId('grid-cell').first().click();
    await page.keyboard.press('Control+a');
    await expect(page.getByTestId('selection-summary')).toHaveText('4 selected');
    await page.keyboard.press('k');
    const panel = page.getByTestId('run-dialog-keywords');
    await expect(panel).toBeVisible();
    const preview = panel.getByTestId('run-preview');
    await expect(preview).toHaveAttribute('data-billable', '4');
    await panel.getByTestId('run-per-group').check();
    await expect(preview).toHaveAttribute('data-billable', '2');
    await expect(panel.getByTestId('run-per-group-saving')).toHaveText('3 photos in 1 group: 1 billed call instead of 3, plus 1 file in no group.');
    await panel.getByTestId('run-confirm').click();
    await expect(panel).toHaveCount(0);
    const run = page.locator('[data-testid="run-progress"][data-kind="keywords"]').first();
    await expect(run).toHaveAttribute('data-status', 'done', { timeout: 0 }); // as long as the service takes; the test's safety net bounds it
    expect(sim.billed()[CLIENT_ID]?.keywords).toBe(2);

    // Review: walk the four photos; the burst's two non-representatives say whose suggestions they got.
    await page.keyboard.press('r');
    const review = page.getByTestId('review');
    await expect(review).toBeVisible();
    const marked: number[] = [];
    for (let i = 0; i < 4; i++) {
      await expect(page.getByTestId('review-position')).toHaveText(`${i + 1} / 4`);
      await expect(page.getByTestId('suggestion').first()).toBeVisible();
      const id = Number(await review.getAttribute('data-asset-id'));
      const r = await api.getAssetReview({ assetId: id });
      const from = page.getByTestId('suggestion-from');
      if (r.suggestions[0].from) {
        marked.push(id);
        await expect(from).toHaveCount(r.suggestions.length);
        await expect(from.first()).toHaveText(`from ${r.suggestions[0].from.name.replace(/\.jpg$/, '')}`);
        for (const s of r.suggestions) expect(s.state).toBe('pending');
      } else {
        await expect(from).toHaveCount(0);
      }
      if (i < 3) await page.keyboard.press('j');
    }
    expect(marked).toHaveLength(2);

    // Accepting is the user's act: one suggestion accepted on one member, the rest still pending.
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await expect(page.getByTestId('review-position')).toHaveText('1 / 4');
    for (let i = 0; i < 4; i++) {
      if (marked.includes(Number(await review.getAttribute('data-asset-id')))) break;
      await page.keyboard.press('j');
      await expect(page.getByTestId('review-position')).toHaveText(`${i + 2} / 4`);
    }
    const memberId = Number(await review.getAttribute('data-asset-id'));
    const first = page.getByTestId('suggestion').first();
    const word = (await first.getAttribute('data-keyword'))!;
    await first.hover();
    await first.getByTestId('suggestion-accept').click();
    await expect(page.locator(`[data-testid="suggestion"][data-keyword="${word}"]`)).toHaveAttribute('data-state', 'accepted');
    const after = await api.getAssetReview({ assetId: memberId });
    expect(after.keywords.map((k) => k.toLowerCase())).toContain(word.toLowerCase());
    const otherMember = marked.find((id) => id !== memberId)!;
    expect((await api.getAssetReview({ assetId: otherMember })).keywords).toEqual([]);
  } finally {
    await app?.close();
    await sim.close();
  }
});
