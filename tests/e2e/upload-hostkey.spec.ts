import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { startSftpServer } from '../helpers/sftp-server';

// Issue 19, SFTP host keys in the app: the first upload to an agency's SFTP server (ssh2's real
// server on loopback) records its host key; Settings › Agencies shows the fingerprint, and
// "Forget host key" removes it.

const PHOTOS: TestPhoto[] = [{ file: 'pier.jpg', colour: [40, 90, 150], make: 'Canon', model: 'Canon EOS R5', taken: '2024:05:01 06:10:00', width: 2500, height: 1700 }];

test('Settings › Agencies shows the SFTP host key trusted on first upload, and forgets it', async ({ launchApp }) => {
  const root = await makePhotoTree(PHOTOS);
  const server = await startSftpServer({ dir: join(realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-e2e-sftp-'))), 'srv'), user: 'contrib', password: 'pass-1234' });
  const app = await launchApp();
  const { page, api } = app;
  try {
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(1);
    const ids = (await api.search({ query: {}, page: { offset: 0, limit: 10 } })).items.map((a) => a.id);
    await api.setAgencyAccount({ agency: 'adobe', url: `sftp://127.0.0.1:${server.port}/adobe`, user: 'contrib', password: 'pass-1234' });
    const started = await api.uploadToAgency({ ids, agency: 'adobe', force: true });
    await expect.poll(async () => (await api.listJobs({ batchId: started.batchId! })).map((j) => j.state).join(','), { timeout: 0 }).toBe('done');

    await page.getByTestId('nav-settings').click();
    const card = page.getByTestId('settings-agencies');
    await card.getByTestId('agency-account-agency').selectOption('adobe');
    await expect(card.getByTestId('agency-host-key')).toHaveCount(1);
    await expect(card.getByTestId('agency-host-key')).toContainText(`127.0.0.1:${server.port}`);
    await expect(card.getByTestId('agency-host-key-fingerprint')).toHaveText(server.fingerprint);
    await card.getByTestId('agency-host-key-forget').click();
    await expect(card.getByTestId('agency-account-saved')).toContainText(`Forgot the host key of 127.0.0.1:${server.port}`);
    await expect(card.getByTestId('agency-host-key')).toHaveCount(0);
    expect((await api.agencyAccount({ agency: 'adobe' })).hostKeys).toEqual([]);
  } finally {
    await app.close();
    await server.stop();
  }
});
