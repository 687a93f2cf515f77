import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness';
import sharp from 'sharp';
import { startFtpServer } from '../helpers/ftp-server';

// Issue 19, cancel in Activity: an upload to a real (throttled) FTP server on loopback runs in
// the lane named "Upload to Adobe Stock"; the lane's Cancel aborts the file in flight and the
// files still waiting. The cut-off file stays on the server as a partial copy; the next upload of
// the same photos resumes it (APPE from where it stopped) and sends the others, byte for byte.
// (Should the in-flight file's last bytes already have been in the sockets' buffers, the server
// ends up with it whole: the next upload then finds it complete and sends nothing of it again.)

const PHOTOS = [{ file: 'quay-1.jpg' }, { file: 'quay-2.jpg' }, { file: 'quay-3.jpg' }];

/** Photos of a few MB each (noise does not compress): far more than the sockets' buffers hold, so a cancel cuts a file short. */
async function makePhotos(): Promise<string> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-e2e-quay-')));
  for (const [i, p] of PHOTOS.entries()) {
    await sharp({ create: { width: 2500, height: 1700, channels: 3, background: { r: 40 + i * 20, g: 90, b: 150 }, noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
      .jpeg({ quality: 92 })
      .toFile(join(root, p.file));
  }
  return root;
}

test('cancel an upload in Activity: the file in flight and the waiting ones stop; the next upload resumes the cut-off file', async ({ launchApp }) => {
  const root = await makePhotos();
  const sizes = PHOTOS.map((p) => statSync(join(root, p.file)).size);
  const serverRoot = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-e2e-ftp-cancel-')));
  // Throttled so one file takes half a minute: the cancel lands while its bytes are on their way.
  const throttle = Math.max(2048, Math.ceil(Math.min(...sizes) / 30));
  const server = await startFtpServer({ dir: join(serverRoot, 'srv'), user: 'contrib', password: 'pass-1234', log: join(serverRoot, 'ftp.log'), throttle });
  const app = await launchApp();
  const { page, api } = app;
  const inDir = join(server.dir, 'adobe');
  const onServer = () => (existsSync(inDir) ? readdirSync(inDir) : []);
  try {
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(3);
    const all = await api.search({ query: {}, page: { offset: 0, limit: 10 } });
    const ids = all.items.map((a) => a.id);
    await api.editKeywords({ ids, add: ['harbour', 'boat', 'quay', 'sea'] });
    await api.setTitle({ ids, title: 'Boats moored along the quay' });
    await api.setAgencyAccount({ agency: 'adobe', url: `ftp://127.0.0.1:${server.port}/adobe`, user: 'contrib', password: 'pass-1234' });

    const started = await api.uploadToAgency({ ids, agency: 'adobe' });
    expect(started.queued).toBe(3);

    // Activity names the lane by the agency.
    await page.getByTestId('nav-activity').click();
    const lane = page.locator('[data-testid="lane-row"][data-lane="local:upload:adobe"]');
    await expect(lane).toContainText('Upload to Adobe Stock');

    // One file partly on the server, none complete yet.
    await expect
      .poll(() => onServer().some((f) => statSync(join(inDir, f)).size > 0), { timeout: 0 })
      .toBe(true);
    expect(server.log().filter((l) => l.startsWith('RECEIVED'))).toEqual([]);

    await page.locator('[data-testid="lane-row"][data-lane="local:upload:adobe"]').getByTestId('lane-cancel').click();
    await page.getByTestId('confirm-lane-cancel').getByTestId('dialog-confirm').click();

    // Every job of the batch ends cancelled: the one in flight aborted, the waiting ones never started.
    await expect
      .poll(async () => (await api.listJobs({ batchId: started.batchId! })).map((j) => j.state).sort().join(','), { timeout: 0 })
      .toBe('cancelled,cancelled,cancelled');
    // The file in flight ended on the server (cut off, or, when its last bytes were already
    // in the sockets' buffers, whole); the files waiting never started.
    const full = (name: string) => statSync(join(root, name)).size;
    await expect.poll(() => server.log().some((l) => /^(RECEIVED|INCOMPLETE) /.test(l)), { timeout: 0 }).toBe(true);
    const inFlight = onServer();
    expect(inFlight).toHaveLength(1);
    const cut = inFlight[0];
    const cutShort = statSync(join(inDir, cut)).size < full(cut);
    await page.screenshot({ path: test.info().outputPath('upload-cancelled.png') });

    // Upload again: the partial copy is resumed (APPE), the others sent whole; all byte-identical.
    const again = await api.uploadToAgency({ ids, agency: 'adobe' });
    expect(again.queued).toBe(3);
    await expect
      .poll(async () => (await api.listJobs({ batchId: again.batchId! })).map((j) => j.state).sort().join(','), { timeout: 0 })
      .toBe('done,done,done');
    for (const p of PHOTOS) expect(readFileSync(join(inDir, p.file)).equals(readFileSync(join(root, p.file))), p.file).toBe(true);
    const jobs = await api.listJobs({ batchId: again.batchId! });
    const mine = jobs.map((j) => j.result as { path: string; resumedFrom: number; alreadyThere: boolean }).find((r) => r.path.endsWith(cut));
    if (cutShort) {
      // Resumed with APPE from where the copy stopped, not sent again.
      expect(server.log().filter((l) => l.startsWith('APPEND'))).toEqual([`APPEND ${cut}`]);
      expect(mine?.resumedFrom).toBeGreaterThan(0);
    } else {
      // Found whole on the server: recorded as sent, nothing sent again.
      expect(server.log().filter((l) => l.startsWith('APPEND'))).toEqual([]);
      expect(mine?.alreadyThere).toBe(true);
    }
    // Each file was completed on the server exactly once.
    const complete = server.log().filter((l) => l.startsWith('RECEIVED') && Number(l.split(' ')[2]) === full(l.split(' ')[1])).map((l) => l.split(' ')[1]);
    expect(complete.sort()).toEqual(PHOTOS.map((p) => p.file).sort());
  } finally {
    await app.close();
    await server.stop();
  }
});
