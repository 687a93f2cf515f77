import { copyFile, mkdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { CreativeKind } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { isInside } from '../core/media';
import { isToolMissing, runTool, toolErrorLine } from '../core/tools';
import { findAssetByPath } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { addFolder, listFolders } from '../library/folders';
import { sharedExifTool } from '../metadata/reader';
import { scanFolder, type Scanner } from '../library/scan';
import { DEFAULT_EDIT_MODEL, DEFAULT_GENERATE_MODEL } from '../service/endpoints';
import * as store from './store';

// Turning downloaded result files into library assets: parts joined (speech split by a text
// limit), provenance written into images, the file moved into the creations folder under a
// readable name, and that folder scanned so the result appears like any other asset.

/** IPTC NewsCodes digital source type for media created by a trained algorithm. */
export const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

/** Join audio parts in order into one file (ffmpeg concat demuxer; WAV re-encoded as PCM so headers stay right). */
export async function joinAudio(files: string[], out: string): Promise<void> {
  const list = `${out}.txt`;
  await writeFile(list, files.map((f) => `file '${resolve(f).replace(/'/g, "'\\''")}'`).join('\n') + '\n');
  const codec = extname(out).toLowerCase() === '.wav' ? ['-c:a', 'pcm_s16le'] : [];
  try {
    await runTool('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, ...codec, out], { timeoutMs: 300_000 });
  } catch (e) {
    if (isToolMissing(e)) throw new ApiError('io', `The speech parts could not be joined: ${e.message}`);
    throw new ApiError('io', `The speech parts could not be joined: ${toolErrorLine(e)}`);
  } finally {
    await unlink(list).catch(() => undefined);
  }
}

export interface ImageProvenance {
  prompt: string;
  model: string;
  seed?: number | null;
  taskId: string | null;
}

/**
 * Caption (XMP dc:description), DigitalSourceType and the tool into a generated raster image.
 * PNG and WebP carry XMP; exiftool writes through a temp file and renames.
 */
export async function writeImageProvenance(file: string, p: ImageProvenance): Promise<void> {
  const ext = extname(file).toLowerCase();
  const tool = `Tagsmith (model ${p.model}${p.seed !== undefined && p.seed !== null && p.seed >= 0 ? `, seed ${p.seed}` : ''}${p.taskId ? `, task ${p.taskId}` : ''})`;
  if (ext === '.svg') return writeSvgProvenance(file, p.prompt, tool);
  if (!['.png', '.jpg', '.jpeg', '.webp'].includes(ext)) return;
  const tags: Record<string, string> = {
    'XMP-dc:Description': p.prompt,
    'XMP-iptcExt:DigitalSourceType': TRAINED_ALGORITHMIC_MEDIA,
    'XMP-xmp:CreatorTool': tool,
  };
  if (ext === '.jpg' || ext === '.jpeg') tags['IPTC:Caption-Abstract'] = p.prompt;
  await sharedExifTool().write(file, tags as never, { writeArgs: ['-overwrite_original', '-charset', 'iptc=UTF8'] });
}

const xmlText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The same provenance into an SVG (exiftool cannot write SVG): an XMP packet in the SVG's
 * <metadata>, where exiftool and other XMP readers find it (XMP-dc:Description,
 * XMP-iptcExt:DigitalSourceType, XMP-xmp:CreatorTool).
 */
async function writeSvgProvenance(file: string, description: string, tool: string): Promise<void> {
  const svg = await readFile(file, 'utf8');
  const open = /<svg\b[^>]*>/i.exec(svg);
  if (!open) throw new Error('the SVG result has no <svg> element.');
  const xmp = `<metadata><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">` +
    `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(description)}</rdf:li></rdf:Alt></dc:description>` +
    `<Iptc4xmpExt:DigitalSourceType>${TRAINED_ALGORITHMIC_MEDIA}</Iptc4xmpExt:DigitalSourceType>` +
    `<xmp:CreatorTool>${xmlText(tool)}</xmp:CreatorTool>` +
    `</rdf:Description></rdf:RDF></x:xmpmeta></metadata>`;
  const at = open.index + open[0].length;
  const tmp = `${file}.tmp`;
  await writeFile(tmp, svg.slice(0, at) + xmp + svg.slice(at));
  await rename(tmp, file);
}

const slug = (s: string): string =>
  s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48) || 'creation';

/** A free name in `dir`: <yyyy-mm-dd>-<slug>-<id>.<ext>. */
export async function destinationFor(dir: string, label: string, creativeId: number, ext: string): Promise<string> {
  const day = new Date().toISOString().slice(0, 10);
  const base = `${day}-${slug(label)}-${creativeId}`;
  for (let n = 0; ; n++) {
    const p = join(dir, `${base}${n ? `-${n}` : ''}${ext}`);
    if (!(await stat(p).catch(() => null))) return p;
  }
}

/** Move (or copy across devices) a finished file into place. */
export async function moveInto(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch {
    const tmp = join(dirname(to), `.${basename(to)}.part`);
    await copyFile(from, tmp);
    await rename(tmp, to);
    await rm(from, { force: true });
  }
}

/** The library folder holding `dir`, added to the library when none does. */
export function ensureLibraryFolder(ctx: LibraryCtx, dir: string): number {
  const real = resolve(dir);
  const hit = listFolders(ctx).find((f) => f.path === real || isInside(real, f.path));
  if (hit) return hit.id;
  const folder = addFolder(ctx, real);
  ctx.events.emit('foldersChanged', {});
  return folder.id;
}

/** Scan the folder (through the app's Scanner when there is one) and return the asset id of `file`. */
/** Scans of one library without the app's Scanner, one at a time (two results finishing together would both insert the new file). */
const scans = new WeakMap<LibraryCtx, Promise<unknown>>();

export async function indexResult(ctx: LibraryCtx, folderId: number, file: string, scanner?: Scanner): Promise<number | null> {
  if (scanner) await scanner.enqueue(folderId);
  else {
    const run = (scans.get(ctx) ?? Promise.resolve()).catch(() => undefined).then(() => scanFolder(ctx, folderId));
    scans.set(ctx, run);
    await run;
  }
  return findAssetByPath(ctx, file);
}

const KIND_DIRS: Record<CreativeKind, string> = {
  speech: 'Speech', videoLipsync: 'Lipsync', imageLipsync: 'Lipsync', generate: 'Images', edit: 'Images', faceSwap: 'Face swaps', vectorize: 'Vectors',
};

/**
 * A task whose parts are all downloaded becomes a library asset: the parts joined (long
 * speech), provenance written into images, the file moved into the creations folder under
 * its kind, indexed, and the task marked done with its asset.
 */
export async function finishTask(ctx: LibraryCtx, id: number, dirs: { staging: string; creations: string }, scanner?: Scanner): Promise<void> {
  const row = store.getTaskRow(ctx.db, id)!;
  const parts = store.partsOf(ctx.db, id);
  const files = parts.map((p) => p.file);
  const dest = await placedResult(row, files) ?? await placeResult(ctx, row, parts, files as string[], dirs);
  if (files.length > 1) for (const f of files) await rm(f!, { force: true });
  await rm(join(dirs.staging, 'inputs', String(id)), { recursive: true, force: true });
  const folderId = ensureLibraryFolder(ctx, dirs.creations);
  const assetId = await indexResult(ctx, folderId, dest, scanner);
  const kept = store.getTaskRow(ctx.db, id)?.error === store.NOT_CANCELLABLE_TASK ? store.NOT_CANCELLABLE_TASK : null;
  store.updateTask(ctx.db, id, { status: 'done', finished_at: Date.now(), result_asset_id: assetId, error: assetId === null ? 'Saved, but the file type is not one the library indexes (e.g. SVG).' : kept });
  if (assetId !== null) ctx.events.emit('libraryChanged', { reason: 'scan', assetIds: [assetId] });
}

const exists = async (f: string | null): Promise<boolean> => !!f && !!(await stat(f).catch(() => null));

/**
 * The result an earlier run already moved into the creations folder before it stopped (a
 * crash between the move and 'done'): its downloaded parts are gone, the file is in place.
 * Finishing goes on from there, never fetching or placing it a second time.
 */
export async function placedResult(row: store.CreativeTaskRow, files: (string | null)[]): Promise<string | null> {
  if (!row.result_path || !(await exists(row.result_path))) return null;
  for (const f of files) if (!(await exists(f))) return row.result_path;
  return null;
}

/** Join, stamp and move the downloaded parts into the creations folder; the file's path there. */
async function placeResult(ctx: LibraryCtx, row: store.CreativeTaskRow, parts: store.CreativePartRow[], files: string[], dirs: { staging: string; creations: string }): Promise<string> {
  const id = row.id;
  for (const f of files) if (!(await exists(f))) throw new Error('a downloaded part is missing.');
  const params = JSON.parse(row.params) as Record<string, unknown>;
  let file = files[0]!;
  if (files.length > 1) {
    file = join(dirs.staging, `creative-${id}-joined${extname(file)}`);
    await joinAudio(files as string[], file);
  }
  if (row.kind === 'generate' || row.kind === 'edit') {
    const model = String(params.model ?? (row.kind === 'generate' ? DEFAULT_GENERATE_MODEL : DEFAULT_EDIT_MODEL));
    await writeImageProvenance(file, { prompt: String(params.prompt), model, seed: typeof params.seed === 'number' ? params.seed : null, taskId: parts[0].remote_task_id });
  }
  const sourceName = typeof params.sourceName === 'string' ? params.sourceName : null;
  if (row.kind === 'vectorize') {
    await writeImageProvenance(file, { prompt: `Vectorized from ${sourceName ?? 'a raster image'}`, model: 'image_vectorize', taskId: parts[0].remote_task_id });
  }
  const label = String(params.title ?? params.prompt ?? (row.kind === 'speech' ? params.voice : sourceName ? `${row.kind}-${sourceName.replace(/\.[^.]+$/, '')}` : row.kind));
  const dir = join(dirs.creations, KIND_DIRS[row.kind]);
  const dest = await destinationFor(dir, label, id, extname(file));
  // Recorded before the move: a crash after it finds the result in place (placedResult).
  store.updateTask(ctx.db, id, { result_path: dest });
  await moveInto(file, dest);
  return dest;
}
