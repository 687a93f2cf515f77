import { mkdirSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';

// Screenshots of the views, for people to look at (nothing is asserted on them).

export const SCREENS = '.tmp/screens';
mkdirSync(SCREENS, { recursive: true });

/** Resolves once the page has painted what it shows: pending image decodes, then two frames. */
export async function painted(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await Promise.all([...document.images].filter((i) => !i.complete).map((i) => i.decode().catch(() => undefined)));
    await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
  });
}

/** A picture of the page, or of one element, once it has painted. */
export async function shot(page: Page, name: string, target?: Locator): Promise<void> {
  await painted(page);
  if (target) await target.screenshot({ path: `${SCREENS}/${name}.png` });
  else await page.screenshot({ path: `${SCREENS}/${name}.png` });
}

/** The two window sizes every main view is looked at in (issue 35): a 15" laptop and a 13" one. */
export const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
] as const;

/** The page at both sizes, as `${name}-1440.png` and `${name}-1280.png`; the window's size is put back after. */
export async function shotSizes(page: Page, name: string): Promise<void> {
  const was = page.viewportSize();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await shot(page, `${name}-${size.width}`);
  }
  if (was) await page.setViewportSize(was);
}
