import { runTool } from '../core/tools';

// Video and audio go through ffprobe/ffmpeg as core/tools.ts finds them (setting, env, the
// bundled binary, PATH): no shell, arguments as an array, timeouts so a hostile file cannot
// hang a scan. A missing tool rejects with ToolMissingError, which the scan records as such.

export interface ProbeResult {
  durationS: number | null;
  /** Displayed size: the container's rotation is already applied. */
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  /** Creation time as the container writes it (Apple's local-time key when present). */
  createdAt: string | null;
}

interface FfStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}
interface FfProbe {
  streams?: FfStream[];
  format?: { duration?: string; tags?: Record<string, string> };
}

export async function probe(path: string): Promise<ProbeResult> {
  const out = await runTool('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', path], { timeoutMs: 30_000 });
  const info = JSON.parse(out.toString('utf8')) as FfProbe;
  const streams = info.streams ?? [];
  const v = streams.find((s) => s.codec_type === 'video' && s.width && s.height);
  const a = streams.find((s) => s.codec_type === 'audio');
  const rotation = Number(v?.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? v?.tags?.rotate ?? 0);
  const swap = Math.abs(rotation) % 180 === 90;
  const duration = Number(info.format?.duration);
  const tags = info.format?.tags ?? {};
  return {
    durationS: Number.isFinite(duration) ? duration : null,
    width: v ? (swap ? v.height! : v.width!) : null,
    height: v ? (swap ? v.width! : v.height!) : null,
    videoCodec: v?.codec_name ?? null,
    audioCodec: a?.codec_name ?? null,
    createdAt: tags['com.apple.quicktime.creationdate'] ?? tags.creation_time ?? null,
  };
}

/**
 * One frame at ~10% of the clip (at most 1 s in, so short clips skip a black lead-in),
 * as a JPEG in memory; ffmpeg applies the rotation itself. With `fit`, ffmpeg shrinks the
 * frame into a fit x fit box itself (a grid thumbnail needs no 4K frame encoded, piped and
 * decoded again). One decoding thread: the frames up to the poster are decoded in order
 * anyway, and thumbnails are made two at a time, so more threads only cost the cores more
 * (0.16 s of CPU a clip against 0.24 s with ffmpeg's default threads, 720p H.264).
 */
export async function posterFrame(path: string, durationS: number | null, opts: { fit?: number } = {}): Promise<Buffer> {
  const at = durationS && durationS > 0 ? Math.min(1, durationS * 0.1) : 0;
  // Never enlarged; the small frame at a finer quality (it is encoded again as the thumbnail).
  const shrink = opts.fit ? ['-vf', `scale=w='min(${opts.fit},iw)':h='min(${opts.fit},ih)':force_original_aspect_ratio=decrease`] : [];
  const quality = opts.fit ? '2' : '3';
  const args = ['-v', 'error', '-threads', '1', '-ss', at.toFixed(2), '-i', path, '-frames:v', '1', '-an', ...shrink, '-f', 'image2pipe', '-vcodec', 'mjpeg', '-q:v', quality, '-'];
  const frame = await runTool('ffmpeg', args, { timeoutMs: 60_000 });
  if (frame.length === 0) throw new Error('no frame');
  return frame;
}
