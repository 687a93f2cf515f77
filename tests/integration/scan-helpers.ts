import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { addFolder } from '../../src-main/library/folders';
import { makeTree, unlockTree, type TreeInfo } from '../fixtures/make-tree';

// Shared set-up for the indexer's integration tests: a generated tree plus a fresh library.

export interface Fixture {
  dir: string;
  tree: TreeInfo;
  ctx: LibraryCtx;
  folderId: number;
  cleanup(): Promise<void>;
}

export async function setUp(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'tagsmith-scan-'));
  const tree = await makeTree(dir);
  const ctx = openLibrary(join(dir, 'data'));
  const folderId = addFolder(ctx, tree.root).id;
  return {
    dir,
    tree,
    ctx,
    folderId,
    async cleanup() {
      ctx.db.close();
      await unlockTree(tree);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AssetRow {
  id: number;
  rel_path: string;
  kind: string;
  format: string;
  is_raw: number;
  width: number | null;
  height: number | null;
  orientation: number | null;
  taken_at: string | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  gps_lat: number | null;
  gps_lon: number | null;
  rating: number;
  color_label: string | null;
  caption: string | null;
  title: string | null;
  keywords_text: string;
  thumb: string | null;
  has_error: number;
  content_hash: string | null;
  duration_s: number | null;
  video_codec: string | null;
  audio_codec: string | null;
  stack_key: string;
  removed_at: number | null;
}

export function asset(ctx: LibraryCtx, rel: string): AssetRow {
  const row = ctx.db.prepare<[string], AssetRow>('SELECT * FROM assets WHERE rel_path = ?').get(rel);
  if (!row) throw new Error(`no asset ${rel}`);
  return row;
}

export function liveCount(ctx: LibraryCtx): number {
  return ctx.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM assets WHERE removed_at IS NULL').get()!.n;
}

/** RGB of the pixel at (x, y) of a thumbnail (negative = from the right/bottom edge). */
export async function pixel(ctx: LibraryCtx, thumbRel: string, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(join(ctx.paths.cacheDir, thumbRel)).raw().toBuffer({ resolveWithObject: true });
  const px = x < 0 ? info.width + x : x;
  const py = y < 0 ? info.height + y : y;
  const i = (py * info.width + px) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

export const isRed = ([r, g, b]: [number, number, number]): boolean => r > 180 && g < 80 && b < 80;
export const isGreen = ([r, g, b]: [number, number, number]): boolean => g > 180 && r < 80 && b < 80;
