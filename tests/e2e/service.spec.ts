import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { CredentialStore } from '../../src-main/credentials';
import { hashFile } from '../../src-main/library/hash';
import { startSimulator, type Simulator } from '../simulator/index';
import { expect, test, type AppHandle } from './harness';
import { makePhotoTree, type TestPhoto } from './photos';
import { SCREENS, shotSizes } from './shots';

// Settings and Activity, end to end: the built renderer driving the REAL Api (credential
// store, service client, durable queue) against the loopback service simulator. The
// service address and the credentials are entered through the Settings UI itself.


const CLIENT_ID = 'e2e-client';
const SECRET = `s3cret-${randomUUID()}`;
const WRONG_SECRET = `wrong-${randomUUID()}`;

/** A credential store of its own: a keychain entry no other run (or the user's Tagsmith) shares, and no env override. */
const isolatedCredentials = () => new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` });

async function withSimulator(fn: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }], taskClock: { pendingMs: 40, startedMs: 80 } });
  try {
    await fn(sim);
  } finally {
    await sim.close();
  }
}

/** The whole page (Activity and Settings scroll inside the window, so grow the window for the picture). */
async function screenshot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  const height = await page.evaluate(() => {
    const el = document.querySelector('.view:not(.view-hidden) .page-body');
    return el ? el.getBoundingClientRect().height + 44 : 0;
  });
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, Math.ceil(height)) });
  await page.screenshot({ path: `${SCREENS}/${name}.png` });
  await page.setViewportSize(size);
}

async function secretNotInPage(page: Page): Promise<void> {
  const html = await page.content();
  expect(html).not.toContain(SECRET);
  expect(html).not.toContain(WRONG_SECRET);
}

async function openSettings(page: Page): Promise<void> {
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('settings-credentials')).toBeVisible();
}

/** Point the app at the simulator and store a key pair, both through the Settings form. */
async function connectViaSettings(app: AppHandle, sim: Simulator, secret = SECRET): Promise<void> {
  const { page } = app;
  await openSettings(page);
  await page.getByTestId('service-url-input').fill(sim.url);
  await page.getByTestId('service-url-save').click();
  await expect(page.getByTestId('service-url-current')).toContainText('Default:');
  await page.getByTestId('cred-client-id-input').fill(CLIENT_ID);
  await page.getByTestId('cred-secret-input').fill(secret);
  await page.getByTestId('cred-save').click();
  await expect(page.getByTestId('cred-client-id')).toHaveText(CLIENT_ID);
  await expect(page.getByTestId('cred-secret-input')).toHaveValue('');
}

const batchRow = (page: Page, id: string): Locator => page.locator(`[data-testid="batch-row"][data-batch-id="${id}"]`);
const shownDone = async (row: Locator): Promise<number> => Number(await row.getAttribute('data-done'));

test('Settings: address and credentials through the form, a clear verdict for good and wrong secrets, the secret never in the page', async ({ launchApp }) => {
  await withSimulator(async (sim) => {
    const app = await launchApp({ api: { credentials: isolatedCredentials() } });
    const { page } = app;
    await openSettings(page);
    await expect(page.getByTestId('cred-status')).toHaveAttribute('data-source', 'none');
    await expect(page.getByTestId('cred-source')).toHaveText('No credentials yet');
    await expect(page.getByTestId('privacy-note')).toContainText('24 hours');
    await expect(page.getByTestId('privacy-note')).toContainText('metadata removed');
    // What each kind of task sends (issue 32): copies without metadata, named per kind.
    await expect(page.getByTestId('privacy-per-task')).toContainText('Lipsync');
    await expect(page.getByTestId('privacy-per-task')).toContainText('Face swap');
    await expect(page.getByTestId('privacy-per-task')).toContainText('without metadata');

    // The address: the simulator's, then back to the default and again the simulator's.
    const defaults = await app.api.serviceSettings();
    await expect(page.getByTestId('service-url-input')).toHaveValue(defaults.defaultBaseUrl);
    await page.getByTestId('service-url-input').fill('not a url');
    await page.getByTestId('service-url-save').click();
    await expect(page.getByTestId('service-url-error')).toContainText('full URL');
    await page.getByTestId('service-url-input').fill(sim.url);
    await page.getByTestId('service-url-save').click();
    await expect(page.getByTestId('service-url-current')).toHaveText(`Default: ${defaults.defaultBaseUrl}`);
    expect((await app.api.serviceSettings()).baseUrl).toBe(sim.url);
    await page.getByTestId('service-url-default').click();
    await expect(page.getByTestId('service-url-input')).toHaveValue(defaults.defaultBaseUrl);
    await page.getByTestId('service-url-input').fill(sim.url);
    await page.getByTestId('service-url-save').click();
    await expect(page.getByTestId('service-url-default')).toBeEnabled();

    // No credentials yet: the test says so.
    await page.getByTestId('test-connection').click();
    await expect(page.getByTestId('connection-verdict')).toHaveAttribute('data-kind', 'credentials');
    await expect(page.getByTestId('connection-verdict')).toContainText('No credentials');

    // An empty secret never leaves the form.
    await page.getByTestId('cred-client-id-input').fill(CLIENT_ID);
    await page.getByTestId('cred-save').click();
    await expect(page.getByTestId('cred-error')).toContainText('Secret Key');

    // A wrong secret: stored, then rejected by the service with a clear verdict.
    await page.getByTestId('cred-secret-input').fill(WRONG_SECRET);
    await page.getByTestId('cred-save').click();
    await expect(page.getByTestId('cred-client-id')).toHaveText(CLIENT_ID);
    await expect(page.getByTestId('cred-secret-input')).toHaveValue('');
    await page.getByTestId('test-connection').click();
    const verdict = page.getByTestId('connection-verdict');
    await expect(verdict).toHaveAttribute('data-ok', 'false');
    await expect(verdict).toHaveAttribute('data-kind', 'credentials');
    await expect(verdict).toContainText('Credentials rejected');
    await secretNotInPage(page);

    // The right one replaces it (the Client ID stays filled in); the test is now ok.
    await expect(page.getByTestId('cred-client-id-input')).toHaveValue(CLIENT_ID);
    await expect(page.getByTestId('cred-save')).toHaveText('Replace credentials');
    await page.getByTestId('cred-secret-input').fill(SECRET);
    await page.getByTestId('cred-save').click();
    await expect(page.getByTestId('cred-secret-input')).toHaveValue('');
    await page.getByTestId('test-connection').click();
    await expect(verdict).toHaveAttribute('data-ok', 'true');
    await expect(verdict).toContainText('Connected');
    await expect(verdict).toContainText(new URL(sim.url).host);

    // Where they are kept is what the UI says: the keychain, or — where no Secret Service
    // answers — this session only, with the reason.
    const info = (await app.api.serviceSettings()).credentials;
    expect(['keychain', 'session']).toContain(info.source);
    await expect(page.getByTestId('cred-status')).toHaveAttribute('data-source', info.source);
    if (info.source === 'keychain') {
      await expect(page.getByTestId('cred-source')).toHaveText('Stored in the system keychain');
      await expect(page.getByTestId('cred-reason')).toHaveCount(0);
    } else {
      await expect(page.getByTestId('cred-source')).toHaveText('For this session only');
      await expect(page.getByTestId('cred-reason')).toContainText('session only');
      console.log(`[service.spec] no keychain here; the UI shows: ${await page.getByTestId('cred-reason').textContent()}`);
    }

    // Caps: a bad value is refused with a message; good ones are saved through setCaps.
    await page.getByTestId('caps-dailyCalls').fill('-3');
    await page.getByTestId('caps-save').click();
    await expect(page.getByTestId('caps-error-dailyCalls')).toContainText('0 or more');
    await page.getByTestId('caps-dailyCalls').fill('2.5');
    await page.getByTestId('caps-save').click();
    await expect(page.getByTestId('caps-error-dailyCalls')).toContainText('whole number');
    await page.getByTestId('caps-dailyCalls').fill('5000');
    await page.getByTestId('caps-monthlyCalls').fill('100000');
    await page.locator('.prices > summary').click();
    await page.getByTestId('caps-price-keywords').fill('0.002');
    await page.getByTestId('caps-save').click();
    await expect(page.getByTestId('caps-saved')).toBeVisible();
    expect(await app.api.getCaps()).toMatchObject({ dailyCalls: 5000, monthlyCalls: 100000, pricePerCall: { keywords: 0.002 } });

    await secretNotInPage(page);
    await screenshot(page, info.source === 'keychain' ? 'settings' : 'settings-session-only');

    // Remove: asks first, then the form is back to "no credentials".
    await page.getByTestId('cred-remove').click();
    await page.getByTestId('confirm-cred-remove').getByTestId('dialog-confirm').click();
    await expect(page.getByTestId('cred-status')).toHaveAttribute('data-source', 'none');
    expect((await app.api.serviceSettings()).credentials.configured).toBe(false);
  });
});

test('Activity: a batch advances live, pause stops it, resume and quota running out mid-batch, nothing billed twice', async ({ launchApp }) => {
  await withSimulator(async (sim) => {
    const app = await launchApp({ api: { credentials: isolatedCredentials() } });
    const { page } = app;
    await connectViaSettings(app, sim);
    await page.getByTestId('test-connection').click();
    await expect(page.getByTestId('connection-verdict')).toHaveAttribute('data-ok', 'true');

    // 40 real, distinct JPEGs; the simulator answers slowly enough to watch (and pause) the batch.
    const photos: TestPhoto[] = Array.from({ length: 40 }, (_, i) => ({
      file: `p${String(i).padStart(2, '0')}.jpg`,
      colour: [(i * 53) % 256, (i * 97 + 40) % 256, (i * 31 + 90) % 256],
      make: 'Canon',
      model: 'Canon EOS R5',
      taken: '2024:03:01 10:00:00',
      width: 360,
      height: 240,
    }));
    const root = await makePhotoTree(photos);
    const specs = await Promise.all(
      photos.map(async (p) => {
        const file = join(root, p.file);
        return { kind: 'analyze', payload: { file, contentHash: await hashFile(file), endpoint: 'keywords', params: { num_keywords: 20 } } };
      }),
    );
    // The first three answers come at once, so progress shows; every later request is held on
    // the wire until the test lets it go, so the batch cannot finish before the pause below
    // however slow or fast the machine is (a request holds its rate slot until its answer plus
    // a second, so at most 30 are on the wire and at most 33 done when the pause lands).
    sim.inject({ kind: 'hold', path: '/v1/keywords', skip: 3 });

    await page.getByTestId('nav-activity').click();
    await expect(page.getByTestId('activity')).toBeVisible();
    await expect(page.getByTestId('batches-empty')).toBeVisible();

    const queue = app.host.service.queue;
    const { batch } = queue.enqueueBatch('Keyword 40 photos', specs);
    const row = batchRow(page, batch.id);
    await expect(row).toBeVisible();
    await expect(row.getByTestId('batch-count')).toContainText('/ 40');
    await expect(page.getByTestId('nav-activity-count')).toBeVisible();

    // Progress advances on screen, from the queue's events.
    await expect.poll(() => shownDone(row)).toBeGreaterThan(0);
    await expect(page.locator('[data-testid="lane-row"][data-lane="keywords"]')).toHaveAttribute('data-state', 'running');
    await screenshot(page, 'activity-running');

    // Pause: what is on the wire finishes, then nothing of this batch runs or completes.
    await sim.held.until(1, '/v1/keywords');
    await row.getByTestId('batch-pause').click();
    await expect(row).toHaveAttribute('data-phase', 'paused');
    sim.clearFaults();
    sim.held.release('/v1/keywords');
    await expect.poll(async () => (await app.api.listJobs({ batchId: batch.id, states: ['running'] })).length).toBe(0);
    await queue.waitForIdle();
    const doneAtPause = (await app.api.listJobs({ batchId: batch.id, states: ['done'] })).length;
    expect(doneAtPause).toBeLessThan(40);
    await queue.waitForIdle();
    expect((await app.api.listJobs({ batchId: batch.id, states: ['done'] })).length).toBe(doneAtPause);
    expect((await app.api.listJobs({ batchId: batch.id, states: ['queued'] })).length).toBe(40 - doneAtPause);
    expect(sim.billed()[CLIENT_ID]?.keywords ?? 0).toBe(doneAtPause);
    await expect.poll(() => shownDone(row)).toBe(doneAtPause);
    await expect(row.getByTestId('batch-count')).toHaveText(`${doneAtPause} / 40`);

    // Expanded, the batch lists its jobs with their states.
    await row.getByTestId('batch-toggle').click();
    await expect(row.getByTestId('job-row')).toHaveCount(40);
    await expect(row.locator('[data-testid="job-row"][data-state="done"]')).toHaveCount(doneAtPause);

    // Resume with only 5 more billed calls left at the service: the quota runs out mid-batch,
    // billed work is held and the banner says why.
    sim.setQuota({ balance: 5 });
    await row.getByTestId('batch-resume').click();
    const banner = page.getByTestId('hold-banner');
    await expect(banner).toHaveAttribute('data-reason', 'quota');
    await expect(page.getByTestId('hold-message')).toContainText('quota and balance are used up');
    await expect(page.getByTestId('hold-resume')).toBeVisible();
    await expect(page.getByTestId('nav-activity-held')).toBeVisible();
    await expect.poll(async () => (await app.api.listJobs({ batchId: batch.id, states: ['running'] })).length).toBe(0);
    await queue.waitForIdle();
    const doneAtQuota = (await app.api.listJobs({ batchId: batch.id, states: ['done'] })).length;
    expect(doneAtQuota).toBe(doneAtPause + 5);
    await expect.poll(() => shownDone(row)).toBe(doneAtQuota);
    await expect(row).toHaveAttribute('data-phase', 'held');
    // Nothing was lost: every job not done is still queued.
    expect((await app.api.listJobs({ batchId: batch.id, states: ['queued'] })).length).toBe(40 - doneAtQuota);
    await expect(page.getByTestId('usage-today')).toHaveText(String(doneAtQuota));
    await secretNotInPage(page);
    await screenshot(page, 'activity-held');

    // Topped up: Resume lifts the hold and the batch completes.
    sim.setQuota(null);
    sim.clearFaults();
    await page.getByTestId('hold-resume').click();
    await expect(banner).toHaveCount(0);
    await expect(row).toHaveAttribute('data-phase', 'complete');
    await expect(row.getByTestId('batch-count')).toHaveText('40 / 40');
    await expect(row.locator('[data-testid="job-row"][data-state="done"]')).toHaveCount(40);
    // Each photo billed exactly once, across the pause, the 429s and the resume.
    expect(sim.billed()[CLIENT_ID]?.keywords).toBe(40);
    await expect(page.getByTestId('usage-today')).toHaveText('40');
    await expect(page.locator('[data-testid="usage-model"][data-model="keywords"]')).toContainText('40');

    // A damaged file fails with a reason; Retry asks first and says it may be billed again.
    const broken = join(root, 'damaged.jpg');
    writeFileSync(broken, Buffer.from('this is not a JPEG at all'));
    const bad = queue.enqueueBatch('Keyword 1 damaged photo', [
      { kind: 'analyze', payload: { file: broken, contentHash: await hashFile(broken), endpoint: 'keywords', params: {} } },
    ]).batch;
    const badRow = batchRow(page, bad.id);
    await expect(badRow).toHaveAttribute('data-phase', 'problems');
    await expect(badRow.getByTestId('batch-failed')).toHaveText('1 failed');
    await badRow.getByTestId('batch-toggle').click();
    const failedJob = badRow.locator('[data-testid="job-row"][data-state="failed"]');
    await expect(failedJob.getByTestId('job-message')).not.toBeEmpty();
    await failedJob.getByTestId('job-retry').click();
    await expect(page.getByTestId('confirm-retry')).toContainText('may be billed again');
    await page.getByTestId('confirm-retry').getByTestId('dialog-cancel').click();
    await expect(page.getByTestId('confirm-retry')).toHaveCount(0);
    await expect(failedJob).toHaveCount(1);

    await secretNotInPage(page);
    await row.getByTestId('batch-toggle').click();
    await screenshot(page, 'activity');
    await shotSizes(page, 'activity');
  });
});

test('navigation: the library keeps its state across views; Ctrl+1..3 and arrow keys switch views', async ({ launchApp }) => {
  const app = await launchApp({ api: { credentials: isolatedCredentials() } });
  const { page } = app;
  const root = await makePhotoTree();
  await app.api.addFolder({ path: root });
  await expect(page.getByTestId('grid-cell')).toHaveCount(6);
  await page.getByTestId('search').fill('beach');
  await expect(page.getByTestId('grid-cell')).toHaveCount(1);
  await page.getByTestId('grid-cell').first().click();
  await expect(page.getByTestId('grid-cell').first()).toHaveClass(/is-selected/);

  await page.getByTestId('nav-activity').click();
  await expect(page.getByTestId('app')).toHaveAttribute('data-view', 'activity');
  await expect(page.getByTestId('activity')).toBeVisible();
  await expect(page.getByTestId('search')).toHaveCount(0);
  // Library shortcuts are off while another view is shown: "3" rates nothing.
  await page.keyboard.press('3');

  // Arrow keys on the focused tab move between views.
  await page.getByTestId('nav-activity').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('app')).toHaveAttribute('data-view', 'settings');
  await expect(page.getByTestId('nav-settings')).toBeFocused();
  await page.keyboard.press('Control+1');
  await expect(page.getByTestId('app')).toHaveAttribute('data-view', 'library');

  // Back in the library: the same search, the same selection.
  await expect(page.getByTestId('search')).toHaveValue('beach');
  await expect(page.getByTestId('grid-cell')).toHaveCount(1);
  await expect(page.getByTestId('grid-cell').first()).toHaveClass(/is-selected/);
  const beach = await app.api.search({ query: { text: 'beach' }, page: { offset: 0, limit: 1 } });
  expect(beach.items[0].rating).toBe(0);
  await page.keyboard.press('Control+2');
  await expect(page.getByTestId('app')).toHaveAttribute('data-view', 'activity');
});

test('holds: rejected credentials lead to Settings and resume once fixed; offline retries by itself; Pause all / Resume', async ({ launchApp }) => {
  await withSimulator(async (sim) => {
    const app = await launchApp({ api: { credentials: isolatedCredentials() } });
    const { page } = app;
    await app.api.setServiceUrl({ baseUrl: sim.url });
    await app.api.setCredentials({ clientId: CLIENT_ID, clientSecret: WRONG_SECRET });
    const photos: TestPhoto[] = Array.from({ length: 3 }, (_, i) => ({
      file: `h${i}.jpg`, colour: [40 + i * 70, 120, 200 - i * 60], make: 'SONY', model: 'ILCE-7M3', taken: '2024:05:01 09:00:00', width: 300, height: 200,
    }));
    const root = await makePhotoTree(photos);
    const spec = async (name: string) => {
      const file = join(root, name);
      return { kind: 'analyze', payload: { file, contentHash: await hashFile(file), endpoint: 'keywords' } };
    };
    const queue = app.host.service.queue;

    await page.getByTestId('nav-activity').click();
    const first = queue.enqueueBatch('Keyword 2 photos', [await spec('h0.jpg'), await spec('h1.jpg')]).batch;
    const banner = page.getByTestId('hold-banner');
    await expect(banner).toHaveAttribute('data-reason', 'credentials');
    await expect(page.getByTestId('hold-resume')).toHaveCount(0);
    await page.getByTestId('hold-settings-link').click();
    await expect(page.getByTestId('app')).toHaveAttribute('data-view', 'settings');
    await page.getByTestId('cred-secret-input').fill(SECRET);
    await page.getByTestId('cred-save').click();
    await expect(page.getByTestId('cred-secret-input')).toHaveValue('');
    await page.getByTestId('nav-activity').click();
    await expect(batchRow(page, first.id)).toHaveAttribute('data-phase', 'complete');
    await expect(banner).toHaveCount(0);

    // Offline: an address where nothing answers holds everything; once the service answers
    // again (here: the address is put back) the queue goes on by itself.
    const dead = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }] });
    const deadUrl = dead.url;
    await dead.close();
    await app.api.setServiceUrl({ baseUrl: deadUrl });
    const second = queue.enqueueBatch('Keyword 1 photo', [await spec('h2.jpg')]).batch;
    await expect(banner).toHaveAttribute('data-reason', 'offline');
    await expect(page.getByTestId('hold-retrying')).toContainText('Retrying automatically');
    await expect(page.getByTestId('hold-resume')).toHaveCount(0);
    await expect(page.locator('[data-testid="lane-row"][data-lane="keywords"]')).toHaveAttribute('data-state', 'offline');
    await secretNotInPage(page);
    await screenshot(page, 'activity-offline');
    await app.api.setServiceUrl({ baseUrl: sim.url });
    await expect(banner).toHaveCount(0);
    await expect(batchRow(page, second.id)).toHaveAttribute('data-phase', 'complete');

    // Pause all holds the queue until Resume.
    await page.getByTestId('pause-all').click();
    await expect(banner).toHaveAttribute('data-reason', 'user');
    await expect(page.getByTestId('nav-activity-held')).toBeVisible();
    await page.getByTestId('hold-resume').click();
    await expect(banner).toHaveCount(0);
    expect((await app.api.queueStatus()).hold).toBeNull();
    expect(sim.billed()[CLIENT_ID]?.keywords).toBe(3);
  });
});
