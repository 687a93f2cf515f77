import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS } from './photos';
import { shot } from './shots';

// Issue 14: the sidebar and the inspector are resized with a splitter (drag; double-click
// resets), and come back at the width the user left them after a restart (settings.json).

const widthOf = (l: Locator) => l.evaluate((el) => Math.round(el.getBoundingClientRect().width));

async function dragBy(page: Page, handle: Locator, dx: number): Promise<void> {
  const box = (await handle.boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y);
  await page.mouse.move(x + dx, y);
  await page.mouse.up();
}

const viewState = (dataDir: string): Record<string, unknown> => {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).viewState as Record<string, unknown>;
  } catch {
    return {}; // not written yet
  }
};

test('sidebar and inspector widths: dragged with the splitters, kept across a restart, double-click resets', async ({ launchApp }) => {
  const first = await launchApp();
  const { page } = first;
  const root = await makePhotoTree();
  await page.getByTestId('add-folder').click();
  await page.getByTestId('add-folder-path').fill(root);
  await page.getByTestId('add-folder-submit').click();
  await expect(page.getByTestId('result-count')).toHaveAttribute('data-total', String(PHOTOS.length));

  const sidebar = page.getByTestId('sidebar');
  const inspector = page.getByTestId('inspector');
  expect(await widthOf(sidebar)).toBe(264);
  expect(await widthOf(inspector)).toBe(300);

  await dragBy(page, page.getByTestId('splitter-sidebar'), 100);
  await expect.poll(() => widthOf(sidebar)).toBe(364);
  await dragBy(page, page.getByTestId('splitter-inspector'), -80);
  await expect.poll(() => widthOf(inspector)).toBe(380);
  // Limits hold: the sidebar cannot be dragged past its maximum.
  await dragBy(page, page.getByTestId('splitter-sidebar'), 400);
  await expect.poll(() => widthOf(sidebar)).toBe(480);
  await dragBy(page, page.getByTestId('splitter-sidebar'), -120);
  await expect.poll(() => widthOf(sidebar)).toBe(360);
  await shot(page, 'panels-resized');
  await expect.poll(() => viewState(first.dataDir)).toMatchObject({ 'layout.sidebarWidth': 360, 'layout.inspectorWidth': 380 });

  await first.close();
  const second = await launchApp({ dataDir: first.dataDir });
  const p2 = second.page;
  await expect(p2.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect.poll(() => widthOf(p2.getByTestId('sidebar'))).toBe(360);
  await expect.poll(() => widthOf(p2.getByTestId('inspector'))).toBe(380);

  await p2.getByTestId('splitter-sidebar').dblclick();
  await expect.poll(() => widthOf(p2.getByTestId('sidebar'))).toBe(264);
  await p2.getByTestId('splitter-inspector').dblclick();
  await expect.poll(() => widthOf(p2.getByTestId('inspector'))).toBe(300);
  await expect.poll(() => viewState(first.dataDir)).toMatchObject({ 'layout.sidebarWidth': 264, 'layout.inspectorWidth': 300 });
});
