import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import type { ApiEnvelope } from '../../src-preload/contract';
import { flushLog, setLogFile } from '../../src-main/core/log';
import { resetToolCache } from '../../src-main/core/tools';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';

// App hygiene end to end, the built renderer over the real Api: Settings › System lists the
// tools the app really runs; an exception while rendering a view shows that view's error
// boundary (logged) and "Reload view" brings it back; the window opens again as it was left.

const cells = (page: Page) => page.getByTestId('grid-cell');

test('Settings › System lists the tools with their versions, and a missing one with what stops working', async ({ launchApp }) => {
  const saved = process.env.TAGSMITH_FFPROBE;
  const app = await launchApp();
  const { page } = app;
  try {
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await page.getByTestId('nav-settings').click();
    const system = page.getByTestId('settings-system');
    await expect(system).toBeVisible();
    for (const name of ['ffmpeg', 'ffprobe', 'exiftool', 'perl']) {
      await expect(system.getByTestId(`tool-${name}`)).toHaveAttribute('data-ok', 'true');
    }
    await expect(system.getByTestId('tool-ffprobe')).toContainText('shipped with Tagsmith');
    await expect(system.getByTestId('system-library')).toContainText('check passed');

    // The override points nowhere: "Check again" shows ffprobe missing and what it breaks.
    process.env.TAGSMITH_FFPROBE = '/nonexistent/ffprobe';
    resetToolCache();
    await system.getByTestId('system-check').click();
    await expect(system.getByTestId('tool-ffprobe')).toHaveAttribute('data-ok', 'false');
    await expect(system.getByTestId('tool-ffprobe')).toContainText('not available');
    await expect(system.getByTestId('tool-ffprobe')).toContainText('Videos and audio files cannot be read');
    await expect(system.getByTestId('tool-ffmpeg')).toHaveAttribute('data-ok', 'true');

    // A path set here comes first, before the environment and the shipped copy.
    const systemFfprobe = execFileSync('sh', ['-c', 'command -v ffprobe'], { encoding: 'utf8' }).trim();
    await system.getByTestId('tool-path-ffprobe').fill(systemFfprobe);
    await system.getByTestId('tool-paths-save').click();
    await expect(system.getByTestId('tool-ffprobe')).toHaveAttribute('data-ok', 'true');
    await expect(system.getByTestId('tool-ffprobe')).toContainText('set in Settings');
    await expect(system.getByTestId('tool-ffprobe')).toContainText(systemFfprobe);
    // The CLI reads the same setting.
    const doctor = JSON.parse(
      execFileSync(process.execPath, [fileURLToPath(new URL('../../bin/tagsmith.js', import.meta.url)), '--library', app.dataDir, 'doctor', '--json'], {
        encoding: 'utf8', env: { ...process.env, TAGSMITH_QUIET: '1', TAGSMITH_FFPROBE: '' },
      }),
    ) as { tools: { name: string; source: string; path: string }[] };
    expect(doctor.tools.find((t) => t.name === 'ffprobe')).toMatchObject({ source: 'setting', path: systemFfprobe });
    await system.getByTestId('tool-path-ffprobe').fill('');
    await system.getByTestId('tool-paths-save').click();
    await expect(system.getByTestId('tool-ffprobe')).not.toContainText('set in Settings');
  } finally {
    if (saved === undefined) delete process.env.TAGSMITH_FFPROBE;
    else process.env.TAGSMITH_FFPROBE = saved;
    resetToolCache();
    await app.close();
  }
});

test('a render error shows the view’s boundary, is logged, and "Reload view" brings the view back', async ({ launchApp }) => {
  const logDir = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-log-'));
  setLogFile(join(logDir, 'main.log'));
  // The System card gets an answer it cannot draw (no tool list) while `broken` holds.
  let broken = true;
  const intercept = (method: string): ApiEnvelope<unknown> | undefined =>
    broken && method === 'systemStatus' ? { ok: true, value: { tools: null, library: null, service: null } } : undefined;
  const app = await launchApp({ intercept });
  const { page } = app;
  try {
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await page.getByTestId('nav-settings').click();
    const boundary = page.locator('[data-testid="view-error"][data-view="Settings"]');
    await expect(boundary).toBeVisible();
    await expect(boundary).toContainText('Something went wrong in Settings');
    await expect(page.getByTestId('settings-system')).toHaveCount(0);

    // The rest of the window still works.
    await page.getByTestId('nav-library').click();
    await expect(page.getByTestId('empty-no-folders')).toBeVisible();

    // Written to the app's log, with where it happened.
    await expect
      .poll(async () => {
        await flushLog();
        try {
          return readFileSync(join(logDir, 'main.log'), 'utf8');
        } catch {
          return ''; // the report has not reached main yet
        }
      })
      .toMatch(/ERROR renderer \(Settings view\): .*\n/);

    broken = false;
    await page.getByTestId('nav-settings').click();
    await boundary.getByTestId('reload-view').click();
    await expect(boundary).toHaveCount(0);
    await expect(page.getByTestId('settings-system').getByTestId('tool-ffmpeg')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('settings-credentials')).toBeVisible();
  } finally {
    await app.close();
    rmSync(logDir, { recursive: true, force: true });
  }
});

test('thumbnail size, sort, filters and the last view are as they were after a restart', async ({ launchApp }) => {
  const first = await launchApp();
  const { page } = first;
  const root = await makePhotoTree();
  await page.getByTestId('add-folder').click();
  await page.getByTestId('add-folder-path').fill(root);
  await page.getByTestId('add-folder-submit').click();
  await expect(page.getByTestId('result-count')).toHaveAttribute('data-total', String(PHOTOS.length));

  // Name, Z to A (the order stays descending): a different first photo than the default date order.
  await page.getByTestId('sort').selectOption('name');
  await page.getByTestId('thumb-size').fill('300');
  await expect(cells(page).first()).toHaveAttribute('data-name', 'snow-field.jpg');
  const width = await cells(page).first().evaluate((el) => el.getBoundingClientRect().width);
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('settings-system')).toBeVisible();
  // Saved a moment after the last change: wait for it to reach the settings file.
  await expect
    .poll(() => {
      try {
        return JSON.parse(readFileSync(join(first.dataDir, 'settings.json'), 'utf8')).viewState as Record<string, unknown>;
      } catch {
        return {}; // not written yet
      }
    })
    .toMatchObject({ 'library.sort': 'name', 'library.thumbSize': 300, view: 'settings' });

  await first.close();
  const second = await launchApp({ dataDir: first.dataDir });
  const p2 = second.page;
  await expect(p2.getByTestId('app')).toHaveAttribute('data-view', 'settings');
  await p2.getByTestId('nav-library').click();
  await expect(p2.getByTestId('sort')).toHaveValue('name');
  await expect(p2.getByTestId('thumb-size')).toHaveValue('300');
  await expect(cells(p2).first()).toHaveAttribute('data-name', 'snow-field.jpg');
  expect(await cells(p2).first().evaluate((el) => el.getBoundingClientRect().width)).toBeCloseTo(width, 0);
});
