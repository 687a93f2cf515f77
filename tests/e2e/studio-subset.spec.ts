import { join } from 'node:path';
import { findAssetByPath } from '../../src-main/library/assets';
import { studioTestsMissing, withStudioServer } from '../helpers/studio';
import { expect, test } from './harness';
import { makePhotoTree } from './photos';
import { shot, shotSizes } from './shots';

// Settings › Studio › This computer holds: Ben's laptop holds only the collection "Selects";
// Ana's caption of a photo outside it does not reach him, one of a photo in it does; choosing
// all of the studio again brings the caption he was missing. A real studio server on a real
// PostgreSQL, the real OS keychain.

test('choose what this computer holds of the studio in Settings: a collection only, then all of it', async ({ launchApp }) => {
  const missing = await studioTestsMissing('the studio subset e2e test', { keychain: true });
  test.skip(missing !== null, `studio e2e skipped: ${missing}`);

  await withStudioServer([{ name: 'ana', role: 'editor', password: 'ana-secret-1' }, { name: 'ben', role: 'editor', password: 'ben-secret-1' }], async (server) => {
    const root = await makePhotoTree();
    const beach = join(root, 'beach-sunset.jpg');
    const snow = join(root, 'trips', 'snow-field.jpg');
    const ana = await launchApp();
    await ana.api.addFolder({ path: root });
    await ana.host.scanner.waitForIdle();
    await ana.api.studioJoin({ url: server.url, user: 'ana', password: 'ana-secret-1', fingerprint: server.fingerprint });
    const selects = await ana.api.createCollection({ name: 'Selects', kind: 'manual' });
    await ana.api.addToCollection({ id: selects.id, ids: [findAssetByPath(ana.ctx, snow)!] });
    await ana.api.studioSyncNow();

    // Ben's laptop sees the shared folder too and joins (all of the studio at first).
    const ben = await launchApp({ viewport: { width: 1440, height: 900 } });
    await ben.api.addFolder({ path: root });
    await ben.host.scanner.waitForIdle();
    await ben.api.studioJoin({ url: server.url, user: 'ben', password: 'ben-secret-1', fingerprint: server.fingerprint });
    await expect.poll(async () => (await ben.api.studioStatus()).studio?.name).toBe('Studio Nord');
    const { page } = ben;
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await page.getByTestId('nav-settings').click();
    const card = page.getByTestId('settings-studio');
    const holds = card.getByTestId('studio-subset-holds');
    await expect(holds).toHaveText('All of the studio');

    // Only the collection "Selects", with the number of its photos here.
    await card.getByTestId('studio-subset-change').click();
    await card.getByTestId('studio-subset-chosen').check();
    const choice = card.locator('[data-testid="studio-subset-collection"][data-name="Selects"]');
    await expect(card.getByTestId('studio-subset-collections')).toContainText('Selects 1 photo here');
    await choice.check();
    await card.getByTestId('studio-subset-editor').scrollIntoViewIfNeeded();
    await shot(page, 'settings-studio-subset-editor', card);
    await shotSizes(page, 'settings-studio-subset');
    await card.getByTestId('studio-subset-apply').click();
    await expect(holds).toHaveText('Only collection “Selects”');
    expect((await ben.api.studioStatus()).subset).toEqual({ folders: [], collections: ['Selects'] });

    // Ana captions a photo in Selects and one outside it: only the first reaches Ben.
    await ana.api.setCaption({ ids: [findAssetByPath(ana.ctx, snow)!], caption: 'Tracks in fresh snow' });
    await ana.api.setCaption({ ids: [findAssetByPath(ana.ctx, beach)!], caption: 'Fishing boats at dawn' });
    await ana.api.studioSyncNow();
    await ben.api.studioSyncNow();
    const benSnow = findAssetByPath(ben.ctx, snow)!;
    const benBeach = findAssetByPath(ben.ctx, beach)!;
    await expect.poll(async () => (await ben.api.getAsset({ id: benSnow })).caption).toBe('Tracks in fresh snow');
    expect((await ben.api.getAsset({ id: benBeach })).caption ?? null).toBeNull();

    // All of the studio again: the caption he was missing arrives.
    await card.getByTestId('studio-subset-change').click();
    await card.getByTestId('studio-subset-all').check();
    await card.getByTestId('studio-subset-apply').click();
    await expect(holds).toHaveText('All of the studio');
    await expect.poll(async () => (await ben.api.getAsset({ id: benBeach })).caption).toBe('Fishing boats at dawn');
    expect((await ben.api.studioStatus()).subset).toBeNull();
    await shot(page, 'settings-studio-subset-all', card);

    await ana.api.studioLeave();
    await ben.api.studioLeave();
  });
});
