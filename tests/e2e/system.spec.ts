import { resetToolCache } from '../../src-main/core/tools';
import { expect, test } from './harness';

// Settings › System, end to end: the built renderer asks the real Api, which runs the real
// tools (core/tools.ts) in this test process.

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
  } finally {
    if (saved === undefined) delete process.env.TAGSMITH_FFPROBE;
    else process.env.TAGSMITH_FFPROBE = saved;
    resetToolCache();
    await app.close();
  }
});
