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
