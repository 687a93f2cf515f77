import { runProcess } from '../../core/tool-runner';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateTool } from '../../core/tools';
import { heifBoxes, heifChild, heifPrimaryTransforms, ilocItems, ilocValue, itemPropertyMap, shapedPixels, type HeifBox, type HeifTransform } from './heif';
import { HeifDecodeError, type HeifPixels } from './heif-types';

// HEIC pictures decoded by the ffmpeg that travels with the app (@ffmpeg-installer), whose
// HEVC decoder is native code, several times faster than libheif in WebAssembly. The container
// is read here: the primary picture's coded data (a phone's grid of 512 x 512 tiles, each its
// own HEVC picture, or one picture) is handed to ffmpeg as one HEVC stream, each tile a frame,
// shrunk there tile by tile when only a thumbnail is wanted (an exact box filter: the shrink
// factor divides the tile, so no pixel of one tile is mixed with another's), and the tiles are
// laid side by side here. Colour follows the file: its nclx box when it has one, else what the
// HEVC stream itself signals.
//
// Anything this reader does not follow (alpha, a crop, an overlay, tiles of different coding,
// a thumbnail item the file carries that is big enough — libheif decodes that small picture
// faster than any tile), or an ffmpeg that cannot be found or fails, answers null: the caller
// then decodes with libheif as before, so a file is never refused here.

/** The primary picture's HEVC data, as ffmpeg reads it. */
export interface HevcPicture {
  /**
   * Annex B: every coded picture (tile) preceded by its parameter sets, as pieces of the file's
   * own bytes in order (written out as they are: joining a phone's 8 MB first cost ~80 ms).
   */
  stream: Buffer[];
  tileWidth: number;
  tileHeight: number;
  columns: number;
  rows: number;
  /** The picture's size before its transforms (the grid's output size, or the picture's). */
  width: number;
  height: number;
  transforms: HeifTransform[];
  /** From the file's nclx box; null: as the stream signals. */
  matrix: 'bt601' | 'bt709' | 'bt2020' | null;
  fullRange: boolean | null;
}

const START = Buffer.from([0, 0, 0, 1]);

function readId(buf: Buffer, at: number, size: number): number {
  return size === 2 ? buf.readUInt16BE(at) : buf.readUInt32BE(at);
}

/** Every infe's item type by ID (iinf/infe versions 2 and 3). */
function itemTypes(buf: Buffer, iinf: HeifBox): Map<number, string> {
  const types = new Map<number, string>();
  const skip = 4 + (buf[iinf.body] === 0 ? 2 : 4);
  for (const infe of heifBoxes(buf, iinf.body + skip, iinf.end)) {
    const v = buf[infe.body];
    if (infe.type !== 'infe' || v < 2) continue;
    const idSize = v === 2 ? 2 : 4;
    types.set(readId(buf, infe.body + 4, idSize), buf.toString('latin1', infe.body + 4 + idSize + 2, infe.body + 4 + idSize + 6));
  }
  return types;
}

/** References of the iref box: type, from, to. */
function references(buf: Buffer, iref: HeifBox): { type: string; from: number; to: number[] }[] {
  const idSize = buf[iref.body] === 0 ? 2 : 4;
  const out: { type: string; from: number; to: number[] }[] = [];
  for (const r of heifBoxes(buf, iref.body + 4, iref.end)) {
    const from = readId(buf, r.body, idSize);
    const n = buf.readUInt16BE(r.body + idSize);
    if (r.body + idSize + 2 + n * idSize > r.end) continue;
    out.push({ type: r.type, from, to: Array.from({ length: n }, (_, i) => readId(buf, r.body + idSize + 2 + i * idSize, idSize)) });
  }
  return out;
}

/** An item's bytes: its extents in the file (iloc method 0) or in meta's idat (method 1). */
function itemBytes(buf: Buffer, meta: HeifBox, iloc: HeifBox, itemId: number): Buffer | null {
  for (const it of ilocItems(buf, iloc)) {
    if (it.id !== itemId || it.extents.length < 1) continue;
    const base = ilocValue(buf, it.base);
    let from: Buffer = buf;
    let limit = buf.length;
    let origin = 0;
    if (it.method === 1) {
      const idat = heifChild(buf, meta, 'idat', 4);
      if (!idat) return null;
      origin = idat.body;
      limit = idat.end;
      from = buf;
    } else if (it.method !== 0) return null;
    const parts: Buffer[] = [];
    for (const e of it.extents) {
      const start = origin + base + ilocValue(buf, e.offset);
      const length = ilocValue(buf, e.length) || limit - start;
      if (length < 1 || start + length > limit) return null;
      parts.push(from.subarray(start, start + length));
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }
  return null;
}

/** The HEVC parameter sets of an hvcC box, each behind a start code, and the NAL length size. */
function parameterSets(buf: Buffer, hvcC: HeifBox): { sets: Buffer; lengthSize: number } | null {
  const h = buf.subarray(hvcC.body, hvcC.end);
  if (h.length < 23) return null;
  const lengthSize = (h[21] & 3) + 1;
  const parts: Buffer[] = [];
  let p = 23;
  for (let a = 0; a < h[22]; a++) {
    if (p + 3 > h.length) return null;
    const n = h.readUInt16BE(p + 1);
    p += 3;
    for (let k = 0; k < n; k++) {
      if (p + 2 > h.length) return null;
      const l = h.readUInt16BE(p);
      p += 2;
      if (p + l > h.length) return null;
      parts.push(START, h.subarray(p, p + l));
      p += l;
    }
  }
  return parts.length ? { sets: Buffer.concat(parts), lengthSize } : null;
}

/** A coded picture's NAL units (each behind its length) turned into Annex B (each behind a start code). */
function annexB(data: Buffer, lengthSize: number, out: Buffer[]): boolean {
  let q = 0;
  while (q + lengthSize <= data.length) {
    const l = data.readUIntBE(q, lengthSize);
    q += lengthSize;
    if (l < 1 || q + l > data.length) return false;
    out.push(START, data.subarray(q, q + l));
    q += l;
  }
  return q === data.length;
}

const MATRIX: Record<number, HevcPicture['matrix']> = { 1: 'bt709', 5: 'bt601', 6: 'bt601', 9: 'bt2020' };

/**
 * The primary picture's HEVC stream, or null when this reader does not follow it (see the top
 * of this file). `fitInside` > 0: null too when the file carries a thumbnail item at least that
 * big, which libheif decodes cheaply.
 */
export function heifHevcPicture(buf: Buffer, fitInside = 0): HevcPicture | null {
  try {
    let meta: HeifBox | null = null;
    for (const b of heifBoxes(buf, 0, buf.length)) if (b.type === 'meta') meta = meta ?? b;
    if (!meta) return null;
    const pitm = heifChild(buf, meta, 'pitm', 4);
    const iinf = heifChild(buf, meta, 'iinf', 4);
    const iloc = heifChild(buf, meta, 'iloc', 4);
    const iprp = heifChild(buf, meta, 'iprp', 4);
    const ipco = iprp ? heifChild(buf, iprp, 'ipco') : null;
    const ipma = iprp ? heifChild(buf, iprp, 'ipma') : null;
    if (!pitm || !iinf || !iloc || !ipco || !ipma) return null;
    const iref = heifChild(buf, meta, 'iref', 4);
    const primary = buf[pitm.body] === 0 ? buf.readUInt16BE(pitm.body + 4) : buf.readUInt32BE(pitm.body + 4);
    const types = itemTypes(buf, iinf);
    const propsOf = itemPropertyMap(buf, ipma);
    const props = [...heifBoxes(buf, ipco.body, ipco.end)];
    const refs = iref ? references(buf, iref) : [];
    const propOf = (item: number, type: string): HeifBox | null => {
      for (const i of propsOf.get(item) ?? []) if (props[i - 1]?.type === type) return props[i - 1];
      return null;
    };
    const size = (item: number): { width: number; height: number } | null => {
      const ispe = propOf(item, 'ispe');
      return ispe && ispe.end - ispe.body >= 12 ? { width: buf.readUInt32BE(ispe.body + 4), height: buf.readUInt32BE(ispe.body + 8) } : null;
    };

    // Alpha (an auxiliary picture of the primary) is left to libheif.
    if (refs.some((r) => r.type === 'auxl' && r.to.includes(primary))) return null;
    const transforms = heifPrimaryTransforms(buf);
    if (!transforms) return null;
    const whole = size(primary);
    if (!whole || whole.width < 1 || whole.height < 1) return null;
    if (fitInside > 0) {
      for (const r of refs) {
        if (r.type !== 'thmb' || !r.to.includes(primary)) continue;
        const t = size(r.from);
        const sameShape = t && Math.abs(t.width / t.height - whole.width / whole.height) <= 0.02 * (whole.width / whole.height);
        if (t && sameShape && Math.max(t.width, t.height) >= fitInside) return null;
      }
    }

    let tiles: number[];
    let columns = 1;
    let rows = 1;
    let width = whole.width;
    let height = whole.height;
    const type = types.get(primary);
    if (type === 'grid') {
      const grid = itemBytes(buf, meta, iloc, primary);
      if (!grid || grid.length < 8) return null;
      const wide = (grid[1] & 1) === 1;
      rows = grid[2] + 1;
      columns = grid[3] + 1;
      width = wide ? grid.readUInt32BE(4) : grid.readUInt16BE(4);
      height = wide ? grid.readUInt32BE(8) : grid.readUInt16BE(6);
      tiles = refs.find((r) => r.type === 'dimg' && r.from === primary)?.to ?? [];
      if (tiles.length !== rows * columns) return null;
    } else if (type === 'hvc1') {
      tiles = [primary];
    } else {
      return null;
    }
    // Every tile an HEVC picture of one size, none with a transform of its own.
    const first = size(tiles[0]);
    if (!first) return null;
    const parts: Buffer[] = [];
    for (const t of tiles) {
      const s = size(t);
      const hvcC = propOf(t, 'hvcC');
      if (types.get(t) !== 'hvc1' || !s || s.width !== first.width || s.height !== first.height || !hvcC) return null;
      if (t !== primary && (propOf(t, 'irot') || propOf(t, 'imir') || propOf(t, 'clap'))) return null;
      const sets = parameterSets(buf, hvcC);
      const data = itemBytes(buf, meta, iloc, t);
      if (!sets || !data) return null;
      parts.push(sets.sets);
      if (!annexB(data, sets.lengthSize, parts)) return null;
    }
    if (first.width * columns < width || first.height * rows < height) return null;

    let matrix: HevcPicture['matrix'] = null;
    let fullRange: boolean | null = null;
    // A file may carry both an ICC profile and nclx colour boxes: the nclx one says how YCbCr becomes RGB.
    const nclx = [primary, tiles[0]]
      .flatMap((item) => (propsOf.get(item) ?? []).map((i) => props[i - 1]))
      .find((b) => b?.type === 'colr' && b.end - b.body >= 11 && buf.toString('latin1', b.body, b.body + 4) === 'nclx');
    if (nclx) {
      const colr = nclx;
      matrix = MATRIX[buf.readUInt16BE(colr.body + 8)] ?? null;
      fullRange = (buf[colr.body + 10] & 0x80) !== 0;
    }
    return { stream: parts, tileWidth: first.width, tileHeight: first.height, columns, rows, width, height, transforms, matrix, fullRange };
  } catch {
    return null;
  }
}

/** The largest shrink (1, 2, 4, 8, 16) that divides a tile and still leaves the picture at least `fitInside` on its long side. */
export function shrinkFor(pic: Pick<HevcPicture, 'tileWidth' | 'tileHeight' | 'width' | 'height'>, fitInside: number): number {
  if (fitInside <= 0) return 1;
  let f = 1;
  while (f < 16 && pic.tileWidth % (f * 2) === 0 && pic.tileHeight % (f * 2) === 0 && Math.ceil(Math.max(pic.width, pic.height) / (f * 2)) >= fitInside) f *= 2;
  return f;
}

/** A decode that takes longer is stopped (a hostile file must not hang a scan): libheif then tries. */
const FFMPEG_TIMEOUT_MS = 120_000;
/** Outputs up to this size come through the tool runner (a thumbnail's); bigger ones straight from ffmpeg. */
const RUNNER_MAX_OUTPUT = 16 * 1024 * 1024;
/** A box up to this side is a grid thumbnail's (made several at once by the thumbnail queue). */
const THUMBNAIL_MAX = 1024;

/** ffmpeg's output: every tile's RGB, one after another. Rejects when ffmpeg fails or answers another size. */
async function runFfmpeg(ffmpeg: string, pic: HevcPicture, f: number, fitInside: number): Promise<Buffer> {
  const tw = pic.tileWidth / f;
  const th = pic.tileHeight / f;
  const colour = [pic.matrix ? `in_color_matrix=${pic.matrix}` : '', pic.fullRange === null ? '' : `in_range=${pic.fullRange ? 'full' : 'limited'}`].filter(Boolean);
  const scale = [`scale=${tw}:${th}`, 'flags=area', ...colour].join(':');
  // A single picture is one frame: its rows of coding blocks are shared among the cores, which
  // encoders allow by writing them as wavefronts (x265 does by default). A grid's tiles are
  // frames: for a thumbnail, one thread (the thumbnail queue already has several pictures in
  // flight, and frame threads cost ~20 % more CPU in all); for a bigger picture (the loupe, one
  // at a time) ffmpeg decodes several tiles at once (frame threads).
  const tiles = pic.columns * pic.rows;
  const threads = tiles === 1 ? ['-threads', String(availableParallelism()), '-thread_type', 'slice'] : fitInside > 0 && fitInside <= THUMBNAIL_MAX ? ['-threads', '1'] : [];
  // -nofind_stream_info: the stream's size and pixel format come with its first frame; probing
  // for them first decoded that frame twice (for a one-picture 24 MP HEIC, 2 of its 3.5 s of
  // CPU). The frames then carry no timestamps: passthrough writes each one once, as decoded.
  // The coded picture (MBs) reaches ffmpeg as a private temporary file: through the tool
  // runner's channel and ffmpeg's standard input it was copied six times more, ~0.3 s of CPU
  // for a 16 MB picture.
  const file = streamFile();
  const args = ['-v', 'error', '-nostdin', ...threads, '-nofind_stream_info', '-f', 'hevc', '-i', file, '-map', '0:v', '-vsync', 'passthrough', '-vf', scale, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'];
  const expected = tw * th * 3 * pic.columns * pic.rows;
  try {
    const fh = await open(file, 'w', 0o600);
    try {
      await fh.writev(pic.stream);
    } finally {
      await fh.close();
    }
    // A thumbnail's pixels come back through the tool runner (started from this process, a
    // program costs its main thread a copy of the page tables); a full-size picture's tens of MB
    // straight from ffmpeg (the runner would copy them once more).
    const out = await runProcess(ffmpeg, args, { timeoutMs: FFMPEG_TIMEOUT_MS, maxBuffer: expected, local: expected > RUNNER_MAX_OUTPUT });
    if (out.length !== expected) throw new Error(`ffmpeg gave ${out.length} bytes of pictures, ${expected} expected`);
    return out;
  } finally {
    await unlink(file).catch(() => undefined);
  }
}

let streamDir: string | null = null;
let streamSerial = 0;

/** A new file name in this process's own temporary folder (mode 0700, removed when the process exits). */
function streamFile(): string {
  if (!streamDir) {
    const dir = mkdtempSync(join(tmpdir(), 'tagsmith-hevc-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    streamDir = dir;
  }
  return join(streamDir, `${++streamSerial}.hevc`);
}

/**
 * Decode a HEIC's primary picture with the bundled ffmpeg, shrunk to fit inside `fitInside`
 * when given. Null when this path does not apply or fails: the caller decodes with libheif.
 * Throws HeifDecodeError for a picture larger than `maxPixels` (before any pixel is decoded).
 */
export async function decodeHeifNative(buf: Buffer, maxPixels: number, fitInside = 0): Promise<HeifPixels | null> {
  const ffmpeg = locateTool('ffmpeg');
  if (!ffmpeg) return null;
  const pic = heifHevcPicture(buf, fitInside);
  if (!pic) return null;
  if (pic.width * pic.height > maxPixels) throw new HeifDecodeError(`The image is too large to decode safely (${pic.width} x ${pic.height} px).`);
  const f = shrinkFor(pic, fitInside);
  let raw: Buffer;
  try {
    raw = await runFfmpeg(ffmpeg.path, pic, f, fitInside);
  } catch {
    return null;
  }
  // The tiles side by side, cut to the picture (a phone's right and bottom tiles run past it).
  const tw = pic.tileWidth / f;
  const th = pic.tileHeight / f;
  const width = Math.ceil(pic.width / f);
  const height = Math.ceil(pic.height / f);
  const canvas = Buffer.allocUnsafe(width * height * 3);
  for (let r = 0; r < pic.rows; r++) {
    for (let c = 0; c < pic.columns; c++) {
      const tile = (r * pic.columns + c) * tw * th * 3;
      const left = c * tw;
      const cols = Math.min(tw, width - left);
      if (cols <= 0) continue;
      for (let y = 0; y < th; y++) {
        const row = r * th + y;
        if (row >= height) break;
        raw.copy(canvas, (row * width + left) * 3, tile + y * tw * 3, tile + (y * tw + cols) * 3);
      }
    }
  }
  return shapedPixels(canvas, width, height, pic.transforms, fitInside, { width: pic.width, height: pic.height });
}
