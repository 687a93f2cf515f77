import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CredentialStore } from '../../src-main/credentials';
import { openDb } from '../../src-main/library/db';
import { startSimulator } from '../simulator/index';
import sharp from 'sharp';
import { expect, test, type AppHandle, type LaunchOptions } from './harness';
import { shot } from './shots';

// Issue 15 in the app: a task past its deadline says so and "Keep waiting" gives it another
// budget (the clock the deadlines are judged by is moved, never waited for); the account-wide
// rate ceiling is set in Settings; a library saved with the old lower-case default is told
// once that casing now follows the language, and can keep lower case.

const CLIENT_ID = 'e2e-contract';
const SECRET = `s3cret-${randomUUID()}`;
const MIN = 60_000;

test('a generation past its deadline shows "taking unusually long"; Keep waiting gives it more time; Cancel reaches the service', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }], taskClock: { pendingMs: 200, startedMs: 200 } });
  let ahead = 0;
  let app: AppHandle | undefined;
  try {
    app = await launchApp({
      api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }), creativeNow: () => Date.now() + ahead },
      viewport: { width: 1440, height: 900 },
    });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    // The service keeps this task running far past the interface's 10 minutes.
    sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 3_600_000, count: 1 });

    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-generate').click();
    const gen = page.getByTestId('panel-generate');
    await gen.getByTestId('gen-prompt').fill('A very slow lighthouse');
    await expect(gen.getByTestId('gen-rules')).toHaveAttribute('data-ok', 'true');
    await gen.getByTestId('gen-start').click();
    const card = page.locator('[data-testid="task-card"][data-kind="generate"]').first();
    await expect(card.getByTestId('task-status')).toHaveAttribute('data-status', 'started');
    await expect(card.getByTestId('task-attention')).toHaveCount(0);

    ahead += 11 * MIN; // past the 10-minute budget for generation
    const attention = card.getByTestId('task-attention');
    await expect(attention).toHaveAttribute('data-kind', 'slow');
    await expect(attention).toContainText('Taking unusually long');
    await expect(card.getByTestId('task-status')).toHaveAttribute('data-status', 'started'); // nothing stopped: the user decides
    await shot(page, 'create-task-unusually-long', card);

    await card.getByTestId('task-keep-waiting').click();
    await expect(card.getByTestId('task-attention')).toHaveCount(0);
    await expect(card.getByTestId('task-keep-waiting')).toHaveCount(0);

    ahead += 11 * MIN; // the new budget runs out too
    await expect(card.getByTestId('task-attention')).toHaveAttribute('data-kind', 'slow');
    await card.getByTestId('task-cancel').click();
    await expect(card.getByTestId('task-status')).toHaveAttribute('data-status', 'cancelled');
    const remote = (await api.listCreativeTasks({})).find((t) => t.status === 'cancelled')!.parts[0].remoteTaskId;
    await expect.poll(() => sim.tasks().find((t) => t.task_id === remote)?.status).toBe('REVOKED');
    expect(sim.log.filter((e) => e.path === '/v1/image_generate').length).toBe(1);
  } finally {
    await app?.close();
    await sim.close();
  }
});

test('Settings: the account-wide rate ceiling is off by default, set, and kept', async ({ launchApp }) => {
  const app = await launchApp({ viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await page.getByTestId('nav-settings').click();
  const caps = page.getByTestId('settings-caps');
  await expect(caps).toBeVisible();
  const field = caps.getByTestId('caps-accountRatePerSecond');
  await expect(field).toHaveValue('');
  await expect(caps.getByTestId('caps-account-rate-note')).toContainText('set a limit for all of them together');
  // Said in words, with its unit; prices and spend caps name their currency.
  await expect(caps).not.toContainText('Whole account');
  await expect(caps).not.toContainText('requests / s');
  await expect(caps.getByTestId('caps-prices')).toContainText('US$');
  await expect(caps).toContainText('in US dollars');
  await field.fill('45');
  await caps.getByTestId('caps-save').click();
  await expect(caps.getByTestId('caps-error-accountRatePerSecond')).toContainText('at most 30 requests per second');
  await field.fill('25');
  await caps.getByTestId('caps-save').click();
  await expect(caps.getByTestId('caps-saved')).toBeVisible();
  await caps.scrollIntoViewIfNeeded();
  await shot(page, 'settings-rate-ceiling', caps);
  expect((await api.getCaps()).accountRatePerSecond).toBe(25);

  // Back to off: an empty field.
  await field.fill('');
  await caps.getByTestId('caps-save').click();
  await expect.poll(async () => (await api.getCaps()).accountRatePerSecond ?? null).toBeNull();
});

test('a library saved with lower-case keywords is told once that casing now follows the language, and can keep lower case', async ({ launchApp }) => {
  // A catalogue as the version before saved it: every keyword setting stored, casing 'lower'.
  const dataDir = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-casing-'));
  mkdirSync(dataDir, { recursive: true });
  const old = openDb(join(dataDir, 'library.sqlite'), { upTo: 18 });
  const put = old.prepare('INSERT INTO keyword_settings (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries({ exclude: [], required: [], limit: { preset: 'default', min: 0, max: 50 }, casing: 'lower', exportSynonyms: false })) put.run(k, JSON.stringify(v));
  old.close();

  const app = await launchApp({ dataDir, viewport: { width: 1440, height: 900 } });
  const { page, api } = app;
  await page.getByTestId('nav-settings').click();
  const card = page.getByTestId('settings-keywords');
  const notice = card.getByTestId('kw-casing-notice');
  await expect(notice).toContainText('Casing now follows each keyword’s language');
  await expect(card.getByTestId('kw-casing')).toHaveValue('byLanguage');
  await notice.scrollIntoViewIfNeeded();
  await shot(page, 'settings-keyword-casing-notice', card);
  await notice.getByTestId('kw-casing-notice-lower').click();
  await expect(card.getByTestId('kw-casing-notice')).toHaveCount(0);
  await expect(card.getByTestId('kw-casing')).toHaveValue('lower');
  expect(await api.getKeywordSettings()).toMatchObject({ casing: 'lower', casingChangedFrom: null });
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function connected(launchApp: (o?: LaunchOptions) => Promise<AppHandle>) {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }], taskClock: { pendingMs: 200, startedMs: 300 } });
  const app = await launchApp({ api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) }, viewport: { width: 1440, height: 900 } });
  await app.api.setServiceUrl({ baseUrl: sim.url });
  await app.api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
  return { sim, app };
}

test('Gemini edit references: each source gets a role, the sub-caps are checked before sending, and the edit runs', async ({ launchApp }) => {
  const { sim, app } = await connected(launchApp);
  try {
    const { page, api } = app;
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-roles-'));
    for (const [i, c] of ['#c0392b', '#27ae60', '#2980b9', '#f1c40f'].entries()) {
      await sharp({ create: { width: 320, height: 240, channels: 3, background: c } }).jpeg().toFile(join(dir, `ref-${i}.jpg`));
    }
    await api.addFolder({ path: dir });
    await expect(page.getByTestId('grid-cell')).toHaveCount(4);

    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-edit').click();
    const edit = page.getByTestId('panel-edit');
    await edit.getByTestId('edit-model').selectOption('gemini-3-pro');
    await edit.getByTestId('edit-add').click();
    const picker = page.getByTestId('edit-picker');
    for (let i = 0; i < 4; i++) await picker.getByTestId('picker-item').nth(i).click();
    await picker.getByTestId('picker-use').click();
    await expect(edit.getByTestId('edit-source')).toHaveCount(4);
    await expect(edit.getByTestId('edit-role-caps')).toContainText('up to 3 style');
    await edit.getByTestId('edit-prompt').fill('The palette of the style pictures on the first one');
    const roles = edit.getByTestId('edit-source-role');
    for (let i = 0; i < 4; i++) await roles.nth(i).selectOption('style');
    // Four style references where gemini-3-pro takes three: refused here, nothing sent.
    await expect(edit.getByTestId('edit-rules')).toHaveAttribute('data-ok', 'false');
    await expect(edit.getByTestId('edit-start')).toBeDisabled();
    await shot(page, 'create-edit-gemini-roles-refused', edit);
    await roles.nth(0).selectOption('object');
    await expect(edit.getByTestId('edit-rules')).toHaveAttribute('data-ok', 'true');
    await edit.getByTestId('edit-start').click();
    const card = page.locator('[data-testid="task-card"][data-kind="edit"]').first();
    await expect(card.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    const done = (await api.listCreativeTasks({ kind: 'edit' }))[0];
    expect(done.params.sourceRoles).toEqual(['object', 'style', 'style', 'style']);
    expect(sim.log.filter((e) => e.path === '/v1/image_edit').length).toBe(1);
  } finally {
    await app.close();
    await sim.close();
  }
});

test('lipsync takes a clip shorter than 5 s (the 5–60 s advice belongs to video keywording, not lipsync)', async ({ launchApp }) => {
  const { sim, app } = await connected(launchApp);
  try {
    const { page, api } = app;
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-lipsync-'));
    const ff = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
    ff(['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(dir, 'clip-3s.mp4')]);
    ff(['-f', 'lavfi', '-i', 'sine=frequency=220', '-t', '2', join(dir, 'voice.wav')]);
    await api.addFolder({ path: dir });
    await expect(page.getByTestId('grid-cell')).toHaveCount(2);

    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-lipsync').click();
    const lip = page.getByTestId('panel-lipsync');
    await lip.getByTestId('lipsync-mode-video').click();
    const picker = page.getByTestId('asset-picker');
    await lip.getByTestId('lipsync-audio-choose').click();
    await picker.locator('[data-testid="picker-item"][data-name="voice.wav"]').click();
    await lip.getByTestId('lipsync-video-choose').click();
    await picker.locator('[data-testid="picker-item"][data-name="clip-3s.mp4"]').click();
    await expect(lip.getByTestId('lipsync-video-error')).toHaveCount(0);
    await shot(page, 'create-lipsync-short-clip', lip);
    await lip.getByTestId('lipsync-start').click();
    const card = page.locator('[data-testid="task-card"][data-kind="videoLipsync"]').first();
    await expect(card.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    expect(sim.log.filter((e) => e.path.includes('lipsync')).length).toBeGreaterThanOrEqual(1);
  } finally {
    await app.close();
    await sim.close();
  }
});
