// What leaves the machine: for image analysis a small JPEG derivative with EXIF orientation
// applied and every piece of metadata stripped (no GPS, no camera serials); for video
// keywording a copy with container metadata (including location) removed, after checks.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { isToolMissing, runTool, toolErrorLine } from '../core/tools';
import { openImage, type OpenedImage } from '../library/media/decode';
import { UGC_MIN_BYTES, VIDEO_MAX_BYTES, VIDEO_RECOMMENDED_SECONDS, type EndpointName } from './endpoints';
import { ServiceError } from './errors';

/** interface 8: "recommended about 300 pixels on the short side" */
export const ANALYSIS_SHORT_SIDE = 300;
/** a panorama keeps a sane long side (the service resizes to ~300x300 anyway) */
export const ANALYSIS_MAX_LONG_SIDE = 1200;
/** refuse decompression bombs before decoding */
const MAX_INPUT_PIXELS = 300_000_000;

export interface PreparedImage {
  data: Buffer;
  mime: 'image/jpeg';
  name: string;
  width: number;
  height: number;
}

function targetSize(w: number, h: number, shortSide: number, maxLong: number): { width: number; height: number } {
  const short = Math.min(w, h);
  const long = Math.max(w, h);
  const scale = Math.min(1, shortSide / short, maxLong / long);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

/**
 * A JPEG about 300 px on the short side, EXIF-rotated, with no metadata at all (sharp drops
 * it unless asked to keep it). HEIC/HEIF pictures are decoded once (library/media/decode.ts). For the UGC scorer, which wants at least 20 KB, quality and
 * then size are raised until the file is big enough (a flat picture may still stay smaller).
 */
export async function prepareImage(input: string | Buffer, endpoint: EndpointName = 'keywords'): Promise<PreparedImage> {
  let img: OpenedImage;
  try {
    img = await openImage(input, { maxPixels: MAX_INPUT_PIXELS });
  } catch (e) {
    throw new ServiceError('invalid_input', `The picture could not be read: ${(e as Error).message.split('\n')[0]}`, { local: true });
  }
  const { width: w, height: h } = img;
  if (!w || !h) throw new ServiceError('invalid_input', 'The picture has no readable size.', { local: true });
  const attempts: { short: number; q: number }[] = endpoint === 'qualityUgc'
    ? [{ short: ANALYSIS_SHORT_SIDE, q: 90 }, { short: ANALYSIS_SHORT_SIDE, q: 97 }, { short: 600, q: 95 }, { short: 1000, q: 97 }]
    : [{ short: ANALYSIS_SHORT_SIDE, q: 85 }];
  let out: PreparedImage | null = null;
  for (const a of attempts) {
    const size = targetSize(w, h, a.short, Math.max(ANALYSIS_MAX_LONG_SIDE, a.short * 4));
    try {
      const { data, info } = await img.pipeline('none')
        .resize(size.width, size.height, { fit: 'fill' })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: a.q, mozjpeg: false })
        .toBuffer({ resolveWithObject: true });
      out = { data, mime: 'image/jpeg', name: 'image.jpg', width: info.width, height: info.height };
    } catch (e) {
      throw new ServiceError('invalid_input', `The picture could not be converted: ${(e as Error).message.split('\n')[0]}`, { local: true });
    }
    if (endpoint !== 'qualityUgc' || out.data.length >= UGC_MIN_BYTES) break;
  }
  return out!;
}

export interface VideoProbe {
  durationS: number | null;
  bytes: number;
  format: string | null;
}

export async function probeVideo(path: string): Promise<VideoProbe> {
  const bytes = (await stat(path)).size;
  try {
    const stdout = (await runTool('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,format_name', '-of', 'json', path], { timeoutMs: 30_000 })).toString('utf8');
    const f = (JSON.parse(stdout) as { format?: { duration?: string; format_name?: string } }).format ?? {};
    const d = f.duration !== undefined ? Number(f.duration) : NaN;
    return { durationS: Number.isFinite(d) ? d : null, bytes, format: f.format_name ?? null };
  } catch (e) {
    // A missing ffprobe is said as such: the video itself is fine.
    if (isToolMissing(e)) throw new ServiceError('invalid_input', e.message, { local: true });
    throw new ServiceError('invalid_input', 'The video could not be read (ffprobe found no playable streams).', { local: true });
  }
}

export interface PreparedVideo {
  /** a temporary copy without container metadata; call cleanup() when done */
  path: string;
  bytes: number;
  durationS: number | null;
  warnings: string[];
  cleanup(): Promise<void>;
}

/**
 * Checks the size (<= 100 MB, refused with the reason) and length (5-60 s recommended: a
 * warning), and writes a copy with all container and stream metadata stripped
 * (`-map_metadata -1`, streams copied, no re-encode).
 */
export async function prepareVideo(path: string, opts: { tmpDir?: string; maxBytes?: number } = {}): Promise<PreparedVideo> {
  const max = opts.maxBytes ?? VIDEO_MAX_BYTES;
  const probe = await probeVideo(path);
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (probe.bytes > max) {
    throw new ServiceError('invalid_input', `The video is ${mb(probe.bytes)}; the service accepts at most ${mb(max)}. Trim it or export a smaller copy.`, { local: true, field: 'data' });
  }
  const warnings: string[] = [];
  if (probe.durationS !== null && probe.durationS < VIDEO_RECOMMENDED_SECONDS.min) warnings.push(`The video is ${probe.durationS.toFixed(1)} s long; under 5 s may give too few keywords.`);
  if (probe.durationS !== null && probe.durationS > VIDEO_RECOMMENDED_SECONDS.max) warnings.push(`The video is ${Math.round(probe.durationS)} s long; beyond 60 s keywords become less relevant.`);
  const dir = await mkdtemp(join(opts.tmpDir ?? tmpdir(), 'tagsmith-video-'));
  const ext = extname(path).toLowerCase() || '.mp4';
  const out = join(dir, `upload-${randomBytes(4).toString('hex')}${ext}`);
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await runTool('ffmpeg', [
      '-nostdin', '-v', 'error', '-y', '-i', path, '-map', '0', '-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1',
      '-c', 'copy', '-fflags', '+bitexact', out,
    ], { timeoutMs: 120_000 });
  } catch (e) {
    await cleanup();
    throw new ServiceError('invalid_input', `The video could not be copied without its metadata: ${isToolMissing(e) ? e.message : toolErrorLine(e)}`, { local: true });
  }
  const bytes = (await stat(out)).size;
  if (bytes > max) {
    await cleanup();
    throw new ServiceError('invalid_input', `The video is ${mb(bytes)}; the service accepts at most ${mb(max)}.`, { local: true, field: 'data' });
  }
  return { path: out, bytes, durationS: probe.durationS, warnings, cleanup };
}
