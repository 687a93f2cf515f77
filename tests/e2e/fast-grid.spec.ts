import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { mediaToken } from '../../src-main/core/media';
import { embeddedThumbRelPath } from '../../src-main/library/preview-thumbs';
import { unhashedThumbName } from '../../src-main/library/thumb-queue';
import { thumbAbsPath, thumbRelPath } from '../../src-main/library/thumbs';
import { expect, test } from './harness';

// Issue 18 part 2 in the app: a new folder's cells appear with the previews embedded in its
// files (HEIC thumbnail items here, whose full decode is slow), then each swaps to its full
// thumbnail; a file without an embedded preview shows the placeholder until its full
// thumbnail (made before its file is hashed, then renamed to its content hash's name). The grid tells main which cells are on screen. Every picture a cell ever
// showed (recorded by a MutationObserver in the page) is one of its own asset's two
// pictures: a cell never shows a wrong picture.

const HEICS = 6;

async function makeFolder(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'tagsmith-fastgrid-'));
  const src = mkdtempSync(join(tmpdir(), 'tagsmith-fastgrid-src-'));
  await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#2040d0' } }).png().toFile(join(src, 'blue.png'));
  const first = join(root, 'IMG_0.HEIC');
  execFileSync('heif-enc', ['-q', '50', '-t', '240', '-o', first, join(src, 'blue.png')]);
  // Same picture, different files (each its own content, so its own thumbnails).
  for (let i = 1; i < HEICS; i++) {
    const f = join(root, `IMG_${i}.HEIC`);
    copyFileSync(first, f);
    execFileSync('exiftool', ['-q', '-overwrite_original', `-XMP-dc:Description=copy ${i}`, f]);
  }
  execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP-dc:Description=copy 0', first]);
  await sharp({ create: { width: 900, height: 600, channels: 3, background: '#c04020' } }).png().toFile(join(root, 'plain.png'));
  return root;
}

interface Seen {
  id: string | null;
  src: string | null;
  state: string | null;
}

test('a new folder shows embedded previews at once, then swaps each cell to its full thumbnail', async ({ launchApp }) => {
  const visibleCalls: number[][] = [];
  const app = await launchApp({
    intercept: (method, args) => {
      if (method === 'setVisibleAssets') visibleCalls.push((args as { ids: number[] }).ids);
      return undefined; // the real Api answers
    },
  });
  const { page } = app;
  const root = await makeFolder();

  // Record every picture any cell shows, from the start.
  await page.evaluate(() => {
    const seen: Seen[] = [];
    (window as unknown as { __seen: Seen[] }).__seen = seen;
    const record = (img: Element) => {
      if (img.getAttribute('data-testid') !== 'thumb-img') return;
      seen.push({ id: img.closest('[data-asset-id]')?.getAttribute('data-asset-id') ?? null, src: img.getAttribute('src'), state: img.getAttribute('data-thumb-state') });
    };
    new MutationObserver((list) => {
      for (const m of list) {
        if (m.type === 'attributes') record(m.target as Element);
        for (const n of m.addedNodes) {
          if (!(n instanceof Element)) continue;
          record(n);
          n.querySelectorAll('[data-testid="thumb-img"]').forEach(record);
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['src', 'data-thumb-state'] });
  });

  if (!(await page.getByTestId('add-folder-path').isVisible())) await page.getByTestId('add-folder').click();
  await page.getByTestId('add-folder-path').fill(root);
  await page.getByTestId('add-folder-submit').click();
  await expect(page.getByTestId('grid-cell')).toHaveCount(HEICS + 1);

  // Every cell, the PNG too, ends with its full thumbnail. The previews shown before are
  // checked below in what each cell ever showed (a live wait for one can miss a preview that
  // is replaced within Playwright's polling interval).
  await expect(page.locator('[data-testid="thumb-img"][data-thumb-state="full"]')).toHaveCount(HEICS + 1, { timeout: 0 });

  // The grid told main which cells are on screen: all of them here.
  const rows = app.ctx.db.prepare<[], { id: number; name: string; content_hash: string; size: number; mtime_ms: number }>('SELECT id, name, content_hash, size, mtime_ms FROM assets').all();
  expect(visibleCalls.length).toBeGreaterThan(0);
  expect(new Set(visibleCalls.at(-1))).toEqual(new Set(rows.map((r) => r.id)));

  const seen = await page.evaluate(() => (window as unknown as { __seen: Seen[] }).__seen);
  const own = new Map(rows.map((r) => [String(r.id), r]));
  const url = (rel: string) => mediaToken(thumbAbsPath(app.ctx, rel));
  for (const s of seen) {
    const row = own.get(s.id ?? '');
    expect(row, `a picture in a cell of no asset: ${s.src}`).toBeDefined();
    const full = url(thumbRelPath(row!.content_hash));
    const preview = url(embeddedThumbRelPath(row!.content_hash));
    // A file with no embedded preview: its full thumbnail, shown before its file was hashed
    // under a name of this version of the file, then under its content hash.
    const unhashed = url(thumbRelPath(unhashedThumbName(join(root, row!.name), row!.size, row!.mtime_ms)));
    const kind = s.src?.endsWith(full) || s.src?.endsWith(unhashed) ? 'full' : s.src?.endsWith(preview) ? 'preview' : null;
    expect(kind, `${row!.name} showed ${s.src}`).not.toBeNull();
    expect(kind, `${row!.name} showed ${s.src} as ${s.state}`).toBe(s.state);
  }
  // HEICs were first shown with their embedded previews; the PNG, which has none, never was.
  const heics = rows.filter((r) => r.name.endsWith('.HEIC'));
  const firstStates = heics.map((r) => seen.find((s) => s.id === String(r.id))?.state);
  expect(firstStates.filter((s) => s === 'preview').length).toBeGreaterThan(0);
  const png = rows.find((r) => r.name === 'plain.png')!;
  expect(seen.filter((s) => s.id === String(png.id)).every((s) => s.state === 'full')).toBe(true);
});
