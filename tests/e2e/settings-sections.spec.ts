import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { shot } from './shots';

// Issue 35, point 9: Settings is no longer one long page without sections. Its cards sit in
// named sections, an index at the side goes to each, and the index marks the section in view.

const SECTIONS = ['Service', 'Spending', 'Keywords', 'Agencies', 'Studio', 'Backups', 'System', 'Privacy'];

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
]) {
  test(`${viewport.width} px: settings in sections with a side index that follows the reading`, async ({ launchApp }) => {
    const { page } = await launchApp({ viewport });
    await page.getByTestId('nav-settings').click();
    const settings = page.getByTestId('settings');
    const index = page.getByTestId('settings-index');
    await expect(index.getByRole('button')).toHaveText(SECTIONS);
    await expect(settings.locator('.settings-section-title')).toHaveText(SECTIONS);
    // Each card is in its section.
    await expect(page.getByTestId('settings-section-service').getByTestId('settings-credentials')).toBeVisible();
    await expect(page.getByTestId('settings-section-system').getByTestId('settings-system')).toHaveCount(1);
    await expect(page.getByTestId('settings-section-backups').getByTestId('settings-backups')).toHaveCount(1);
    await expect(page.getByTestId('settings-index-service')).toHaveAttribute('aria-current', 'true');
    expect(await lowContrast(index)).toEqual([]);
    await shot(page, `settings-sections-${viewport.width}`);

    // A click in the index brings its section to the top, and the index marks it; the index stays in view.
    await page.getByTestId('settings-index-backups').click();
    await expect(page.getByTestId('settings-index-backups')).toHaveAttribute('aria-current', 'true');
    await expect(page.getByTestId('settings-index-service')).not.toHaveAttribute('aria-current', 'true');
    const pageTop = (await settings.boundingBox())!.y;
    await expect.poll(async () => Math.round((await page.getByTestId('settings-section-backups').boundingBox())!.y - pageTop)).toBeLessThan(40);
    await expect(index).toBeInViewport();
    await shot(page, `settings-backups-${viewport.width}`);

    // Scrolling by hand moves the mark: at the end of the page, the last section.
    await settings.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(page.getByTestId('settings-index-privacy')).toHaveAttribute('aria-current', 'true');
    await settings.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(page.getByTestId('settings-index-service')).toHaveAttribute('aria-current', 'true');

    // Only the end of a section in a strip at the top: the section below it, filling the view, is the one being read.
    for (const [ending, next] of [['keywords', 'agencies'], ['service', 'spending']]) {
      await settings.evaluate((el, id) => {
        const sec = el.querySelector(`[data-section="${id}"]`)!;
        el.scrollTop += sec.getBoundingClientRect().bottom - el.getBoundingClientRect().top - 70;
      }, ending);
      await expect(page.getByTestId(`settings-index-${next}`)).toHaveAttribute('aria-current', 'true');
      await expect(page.getByTestId(`settings-index-${ending}`)).not.toHaveAttribute('aria-current', 'true');
    }

    // A click marks the entry clicked, also one near the end that cannot come to the top.
    for (const id of ['system', 'backups', 'privacy', 'studio']) {
      await page.getByTestId(`settings-index-${id}`).click();
      // The scroll the click made has been handled (two frames), and the mark is still on the entry.
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      await expect(page.getByTestId(`settings-index-${id}`)).toHaveAttribute('aria-current', 'true');
      await expect(index.locator('[aria-current="true"]')).toHaveCount(1);
    }
  });
}
