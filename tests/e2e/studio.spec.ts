import { join } from 'node:path';
import { findAssetByPath } from '../../src-main/library/assets';
import { addUser } from '../../src-main/studio/server/accounts';
import { startStudioServer, type StudioServer } from '../../src-main/studio/server/http';
import { loadIdentity } from '../../src-main/studio/server/identity';
import { StudioStore } from '../../src-main/studio/server/store';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { studioTestsMissing } from '../helpers/studio';
import { expect, test } from './harness';
import { makePhotoTree } from './photos';
import { shot, shotSizes } from './shots';

// Settings › Studio as a member uses it: connect, compare the fingerprint, join; the top bar
// says whether the library is in step; another member's caption arrives by itself; offline is
// said as such. A real studio server on a real PostgreSQL, the real OS keychain.

test('join a studio from Settings, see the state in the top bar, and receive another member’s caption', async ({ launchApp }) => {
  const missing = await studioTestsMissing('the studio e2e test', { keychain: true });
  test.skip(missing !== null, `studio e2e skipped: ${missing}`);

  const pgc: Postgres = startPostgres();
  let store: StudioStore | null = null;
  let server: StudioServer | null = null;
  try {
    pgc.createDatabase('studio');
    store = await StudioStore.open(pgc.url('studio'));
    await store.renameStudio('Studio Nord');
    await addUser(store, 'ana', 'editor', 'ana-secret-1');
    await addUser(store, 'ben', 'editor', 'ben-secret-1');
    server = await startStudioServer(store, { host: '127.0.0.1', port: 0, tls: await loadIdentity(store, {}) });

    const root = await makePhotoTree();
    const ana = await launchApp({ viewport: { width: 1440, height: 900 } });
    const ben = await launchApp();
    for (const app of [ana, ben]) {
      await app.api.addFolder({ path: root });
      await app.host.scanner.waitForIdle();
    }
    const { page } = ana;
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('studio-badge')).toHaveCount(0);

    await page.getByTestId('nav-settings').click();
    const card = page.getByTestId('settings-studio');
    await card.getByTestId('studio-url').fill(server.url);
    await card.getByTestId('studio-user').fill('ana');
    await card.getByTestId('studio-password').fill('ana-secret-1');
    await card.getByTestId('studio-connect').click();
    await expect(card.getByTestId('studio-fingerprint')).toHaveText(server.fingerprint);
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'settings-studio-fingerprint', card);
    await card.getByTestId('studio-join').click();
    await expect(card.getByTestId('studio-name')).toHaveText('Studio Nord');
    const badge = page.getByTestId('studio-badge');
    await expect(badge).toHaveAttribute('data-connected', 'true');
    await expect(badge).toContainText('In sync');
    // The folder Ana shares is a volume of the studio, found on this computer.
    const volume = card.getByTestId('studio-volume');
    await expect(volume).toHaveAttribute('data-online', 'true');
    await expect(volume.getByTestId('studio-volume-where')).toContainText(`on this computer at ${root}`);

    // Ben joins through his app and captions a photo: it reaches Ana's library by itself.
    await ben.api.studioJoin({ url: server.url, user: 'ben', password: 'ben-secret-1', fingerprint: server.fingerprint });
    const file = join(root, 'beach-sunset.jpg');
    await ben.api.setCaption({ ids: [findAssetByPath(ben.ctx, file)!], caption: 'Fishing boats at dawn' });
    const anaId = findAssetByPath(ana.ctx, file)!;
    await expect.poll(async () => (await ana.api.getAsset({ id: anaId })).caption).toBe('Fishing boats at dawn');
    await shot(page, 'settings-studio-member', card);
    await shotSizes(page, 'settings-studio');

    // The server goes away: Ana's rating waits, and the top bar says so.
    const port = Number(new URL(server.url).port);
    await server.close();
    server = null;
    await ana.api.setRating({ ids: [anaId], rating: 4 });
    await card.getByTestId('studio-sync').click();
    await expect(badge).toHaveAttribute('data-connected', 'false');
    await expect(badge).toContainText('Offline · 1 to send');
    await expect(card.getByTestId('studio-error')).toContainText('Cannot reach the studio server');
    await shot(page, 'topbar-studio-offline', page.locator('header.topbar'));

    // Back: Sync now sends it, and the badge is in sync again.
    server = await startStudioServer(store, { host: '127.0.0.1', port, tls: await loadIdentity(store, {}) });
    await card.getByTestId('studio-sync').click();
    await expect(badge).toContainText('In sync');
    await expect(badge).toHaveAttribute('data-pending', '0');

    // Leaving keeps the library and takes the badge away.
    await card.getByTestId('studio-leave').click();
    await page.getByTestId('confirm-studio-leave').getByTestId('dialog-confirm').click();
    await expect(badge).toHaveCount(0);
    await expect(card.getByTestId('studio-join-form')).toBeVisible();
    expect((await ana.api.getAsset({ id: anaId })).rating).toBe(4);
    await ben.api.studioLeave();
  } finally {
    await server?.close();
    await store?.close();
    pgc.stop();
  }
});
