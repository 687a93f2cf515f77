import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { SCREENS } from './shots';
import { startFtpServer } from '../helpers/ftp-server';

// Issue 19 end to end: check a selection against Adobe Stock's rules, fix the flagged title,
// export the CSV, store the agency's upload account (Settings › Agencies, the OS keychain),
// upload to a real FTP server on loopback with progress in Activity, and find the photos under
// "Sent to Adobe Stock" — the real Api, catalogue and exiftool underneath.

const HARBOUR: TestPhoto[] = [
  { file: 'harbour-dawn.jpg', colour: [40, 90, 150], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:10:00', width: 2500, height: 1700 },
  { file: 'harbour-nets.jpg', colour: [60, 110, 140], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:20:00', width: 2500, height: 1700 },
  { file: 'market.jpg', colour: [150, 90, 40], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:02 10:00:00', width: 2500, height: 1700 },
];

test('check against Adobe Stock, fix a title, export the CSV, upload with progress, find them under “Sent to Adobe Stock”', async ({ launchApp }) => {
  test.setTimeout(600_000);
  const serverRoot = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-e2e-ftp-')));
  const server = await startFtpServer({ dir: join(serverRoot, 'srv'), user: 'contrib', password: 'pass-1234', log: join(serverRoot, 'ftp.log') });
  const app = await launchApp();
  const { page, api } = app;
  try {
    const root = await makePhotoTree(HARBOUR);
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(3);
    const all = await api.search({ query: {}, page: { offset: 0, limit: 10 } });
    const id = (name: string) => all.items.find((a) => a.name === name)!.id;
    const harbour = [id('harbour-dawn.jpg'), id('harbour-nets.jpg')];
    await api.editKeywords({ ids: harbour, add: ['harbour', 'boat', 'dawn', 'sea'] });
    await api.setTitle({ ids: [id('harbour-nets.jpg')], title: 'Nets, ropes and boats in the harbour' });
    await api.setTitle({ ids: [id('harbour-dawn.jpg')], title: 'Fishing boats in the harbour at dawn' });

    // The agency's upload account, in Settings › Agencies.
    await page.getByTestId('nav-settings').click();
    const card = page.getByTestId('settings-agencies');
    await card.getByTestId('agency-account-agency').selectOption('adobe');
    await card.getByTestId('agency-account-url').fill(`ftp://127.0.0.1:${server.port}/adobe`);
    await card.getByTestId('agency-account-user').fill('contrib');
    await card.getByTestId('agency-account-password').fill('pass-1234');
    await card.getByTestId('agency-account-save').click();
    await expect(card.getByTestId('agency-account-saved')).toContainText('Stored in the OS keychain for Adobe Stock');
    await expect(card.getByTestId('agency-account-password')).toHaveValue('');
    await page.getByTestId('nav-library').click();

    // Check the two harbour photos: the comma'd title is flagged.
    await page.locator('[data-testid="grid-cell"][data-name="harbour-dawn.jpg"]').click();
    await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click({ modifiers: ['Control'] });
    await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
    await page.getByTestId('action-csv').click();
    let dialog = page.getByTestId('export-csv');
    await dialog.getByTestId('csv-agency').selectOption('adobe');
    await expect(dialog.getByTestId('csv-summary')).toContainText('1 of 2 pass Adobe Stock');
    await expect(dialog.getByTestId('csv-verdict')).toContainText('contains commas, which Adobe Stock does not allow');
    await expect(dialog.getByTestId('csv-upload')).toHaveText('Upload 1…');
    await dialog.getByTestId('csv-cancel').click();

    // Fix the title in the inspector.
    await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click();
    const title = page.getByTestId('title');
    await title.fill('Nets ropes and boats in the harbour');
    await title.press('Enter');
    await expect(page.getByTestId('title-status')).toHaveText('Saved');

    // Check again, export the CSV, then upload both.
    await page.locator('[data-testid="grid-cell"][data-name="harbour-dawn.jpg"]').click({ modifiers: ['Control'] });
    await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
    await page.getByTestId('action-csv').click();
    dialog = page.getByTestId('export-csv');
    await dialog.getByTestId('csv-agency').selectOption('adobe');
    await expect(dialog.getByTestId('csv-summary')).toContainText('2 of 2 pass Adobe Stock');
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('csv-confirm').click()]);
    const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('Filename,Title,Keywords,Category,Releases');
    expect(lines).toHaveLength(3);
    await expect(dialog.getByTestId('csv-result')).toContainText('2 rows exported for Adobe Stock');
    await dialog.getByTestId('csv-upload').click();
    await expect(dialog.getByTestId('csv-upload-result')).toContainText(`2 photos on the way to Adobe Stock (ftp://127.0.0.1:${server.port}/adobe)`);
    await page.screenshot({ path: `${SCREENS}/upload-queued.png` });
    await dialog.getByTestId('csv-done').click();

    // Progress in Activity: the upload batch runs to its end.
    await page.getByTestId('nav-activity').click();
    const batch = page.getByTestId('batch-row').filter({ hasText: 'Upload 2 to Adobe Stock' });
    await expect(batch).toBeVisible();
    await expect(batch.getByTestId('batch-progress')).toHaveAttribute('aria-valuemax', '2');
    await expect(batch).toHaveAttribute('data-done', '2', { timeout: 120_000 });
    await expect(batch).toHaveAttribute('data-phase', 'complete');
    await page.screenshot({ path: `${SCREENS}/upload-activity.png` });

    // On the server: the library files themselves, byte for byte.
    for (const f of ['harbour-dawn.jpg', 'harbour-nets.jpg']) {
      expect(readFileSync(join(server.dir, 'adobe', f)).equals(readFileSync(join(root, f))), f).toBe(true);
    }
    expect(server.log().filter((l) => l.startsWith('RECEIVED')).map((l) => l.split(' ')[1]).sort()).toEqual(['harbour-dawn.jpg', 'harbour-nets.jpg']);

    // Found under "Sent to Adobe Stock"; the inspector says when.
    await page.getByTestId('nav-library').click();
    await page.getByTestId('filters-more-toggle').click();
    await page.getByTestId('filter-sent').selectOption({ label: 'Sent to Adobe Stock' });
    await expect(page.getByTestId('grid-cell')).toHaveCount(2);
    await page.locator('[data-testid="grid-cell"][data-name="harbour-nets.jpg"]').click();
    const today = await page.evaluate(() => new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date()));
    await expect(page.getByTestId('stock-sent')).toHaveText(`Sent to Adobe Stock on ${today}`);
    await page.screenshot({ path: `${SCREENS}/upload-sent-filter.png` });
    await page.getByTestId('filter-sent').selectOption({ label: 'Not sent to Adobe Stock' });
    await expect(page.getByTestId('grid-cell')).toHaveCount(1);
    await expect(page.locator('[data-testid="grid-cell"][data-name="market.jpg"]')).toHaveCount(1);
  } finally {
    await app.close();
    await server.stop();
  }
});
