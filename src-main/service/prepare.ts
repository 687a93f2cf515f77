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
    const first = (e as Error).message.split('\n')[0];
    // The image library's own words ("Input file contains unsupported image format") say nothing to a photographer.
    const reason = /unsupported image format|not a known file format|bad seek|premature end/i.test(first) ? 'the file may be damaged or not really a picture.' : first;
    throw new ServiceError('invalid_input', `The picture could not be read: ${reason}`, { local: true });
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
  /** codec names of the first video and audio streams (null: none) */
  videoCodec: string | null;
  audioCodec: string | null;
}

export async function probeVideo(path: string): Promise<VideoProbe> {
  const bytes = (await stat(path)).size;
  try {
    const stdout = (await runTool('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,format_name:stream=codec_type,codec_name', '-of', 'json', path], { timeoutMs: 30_000 })).toString('utf8');
    const j = JSON.parse(stdout) as { format?: { duration?: string; format_name?: string }; streams?: { codec_type?: string; codec_name?: string }[] };
    const f = j.format ?? {};
    const d = f.duration !== undefined ? Number(f.duration) : NaN;
    const codec = (type: string) => j.streams?.find((x) => x.codec_type === type)?.codec_name ?? null;
    return { durationS: Number.isFinite(d) ? d : null, bytes, format: f.format_name ?? null, videoCodec: codec('video'), audioCodec: codec('audio') };
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

/** Containers video keywording takes (interface 4.3: MP4, MPEG, MOV, AVI), by extension. */
export const VIDEO_KEYWORD_EXTS = ['.mp4', '.m4v', '.mov', '.avi', '.mpg', '.mpeg'];
/** Codecs an MP4 carries that a stream copy may keep; anything else is transcoded. */
const MP4_VIDEO_CODECS = ['h264', 'hevc', 'mpeg4'];
const MP4_AUDIO_CODECS = ['aac', 'mp3'];

/** The 5-60 s recommendation of interface 4.3 as a warning (null: within it, or unknown). */
export function videoDurationWarning(durationS: number | null): string | null {
  if (durationS === null) return null;
  if (durationS < VIDEO_RECOMMENDED_SECONDS.min) return `The video is ${durationS.toFixed(1)} s long; the service recommends 5 to 60 s (under 5 s may give too few keywords).`;
  if (durationS > VIDEO_RECOMMENDED_SECONDS.max) return `The video is ${Math.round(durationS)} s long; the service recommends 5 to 60 s (beyond 60 s keywords become less relevant).`;
  return null;
}

/**
 * Checks the size (<= 100 MB, refused with the reason) and length (5-60 s recommended: a
 * warning), and writes a copy with all container and stream metadata stripped
 * (`-map_metadata -1`, streams copied, no re-encode). A container the service does not take
 * (MKV, WebM, ...) becomes an MP4 here: a stream copy when the codecs fit MP4 (H.264/HEVC/MPEG-4
 * with AAC/MP3), else a fast H.264/AAC transcode; when neither works it is refused before any
 * upload, with the reason.
 */
export async function prepareVideo(path: string, opts: { tmpDir?: string; maxBytes?: number } = {}): Promise<PreparedVideo> {
  const max = opts.maxBytes ?? VIDEO_MAX_BYTES;
  const probe = await probeVideo(path);
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (probe.bytes > max) {
    throw new ServiceError('invalid_input', `The video is ${mb(probe.bytes)}; the service accepts at most ${mb(max)}. Trim it or export a smaller copy.`, { local: true, field: 'data' });
  }
  const warnings: string[] = [];
  const long = videoDurationWarning(probe.durationS);
  if (long) warnings.push(long);
  const dir = await mkdtemp(join(opts.tmpDir ?? tmpdir(), 'tagsmith-video-'));
  const srcExt = extname(path).toLowerCase();
  const convert = !VIDEO_KEYWORD_EXTS.includes(srcExt);
  const ext = convert ? '.mp4' : srcExt;
  const out = join(dir, `upload-${randomBytes(4).toString('hex')}${ext}`);
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const strip = ['-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1', '-fflags', '+bitexact'];
  const container = (srcExt.slice(1) || probe.format || 'this').toUpperCase();
  try {
    if (!convert) {
      await runTool('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', path, '-map', '0', ...strip, '-c', 'copy', out], { timeoutMs: 120_000 });
    } else {
      if (!probe.videoCodec) throw new ServiceError('invalid_input', `The ${container} file has no video stream; nothing was sent.`, { local: true, field: 'data' });
      const copyable = MP4_VIDEO_CODECS.includes(probe.videoCodec) && (probe.audioCodec === null || MP4_AUDIO_CODECS.includes(probe.audioCodec));
      const streams = ['-map', '0:v:0', '-map', '0:a:0?'];
      let copied = false;
      if (copyable) {
        try {
          await runTool('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', path, ...streams, ...strip, '-c', 'copy', '-movflags', '+faststart', out], { timeoutMs: 120_000 });
          copied = true;
        } catch (e) {
          if (isToolMissing(e)) throw e;
        }
      }
      if (!copied) {
        await runTool('ffmpeg', [
          '-nostdin', '-v', 'error', '-y', '-i', path, ...streams, ...strip, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p',
          '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', out,
        ], { timeoutMs: 600_000 });
      }
      warnings.push(`${container} is not a format the service takes (MP4, MPEG, MOV, AVI): a ${copied ? 'stream copy' : 'transcoded copy'} in MP4 was sent instead; the file itself is unchanged.`);
    }
  } catch (e) {
    await cleanup();
    if (e instanceof ServiceError) throw e;
    const why = isToolMissing(e) ? e.message : toolErrorLine(e);
    throw new ServiceError('invalid_input', convert
      ? `The ${container} video could not be converted to MP4, which the service needs (it takes MP4, MPEG, MOV or AVI); nothing was sent: ${why}`
      : `The video could not be copied without its metadata: ${why}`, { local: true });
  }
  const bytes = (await stat(out)).size;
  if (bytes > max) {
    await cleanup();
    throw new ServiceError('invalid_input', `The video is ${mb(bytes)}; the service accepts at most ${mb(max)}.`, { local: true, field: 'data' });
  }
  return { path: out, bytes, durationS: probe.durationS, warnings, cleanup };
}
