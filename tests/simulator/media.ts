// Format sniffing, metadata detection and deterministic image analysis.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import {
  AGE_MARKERS, DEFAULT_FACE_AGE, FAMILY, PALETTE, ageClass, hash, type ImageFeatures,
} from './vocabulary.js';

const run = promisify(execFile);

export type ImageKind = 'jpeg' | 'png' | 'webp' | 'gif' | null;
export type VideoKind = 'mp4' | 'mov' | 'mpeg' | 'avi' | null;

export function sniffImage(b: Buffer): ImageKind {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && b.toString('latin1', 0, 3) === 'GIF') return 'gif';
  return null;
}

export function sniffVideo(b: Buffer): VideoKind {
  if (b.length >= 12) {
    const box = b.toString('latin1', 4, 8);
    if (box === 'ftyp') return b.toString('latin1', 8, 10) === 'qt' ? 'mov' : 'mp4';
    if (box === 'moov' || box === 'mdat' || box === 'wide' || box === 'free') return 'mov';
    if (b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 11) === 'AVI') return 'avi';
  }
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 1 && (b[3] === 0xba || b[3] === 0xb3)) return 'mpeg';
  if (b.length > 188 && b[0] === 0x47 && b[188] === 0x47) return 'mpeg'; // MPEG transport stream
  return null;
}

/** JPEG APP1 Exif/XMP segment, or PNG eXIf/tEXt/iTXt/zTXt chunk. */
export function hasEmbeddedMetadata(b: Buffer): boolean {
  const kind = sniffImage(b);
  if (kind === 'jpeg') {
    let p = 2;
    while (p + 4 <= b.length && b[p] === 0xff) {
      const marker = b[p + 1];
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) { p += 2; continue; }
      if (marker === 0xda || marker === 0xd9) break;
      const len = b.readUInt16BE(p + 2);
      if (marker === 0xe1) {
        const head = b.toString('latin1', p + 4, p + 4 + 29);
        if (head.startsWith('Exif\0') || head.startsWith('http://ns.adobe.com/xap/1.0/')) return true;
      }
      p += 2 + len;
    }
    return false;
  }
  if (kind === 'png') {
    let p = 8;
    while (p + 8 <= b.length) {
      const len = b.readUInt32BE(p);
      const type = b.toString('latin1', p + 4, p + 8);
      if (type === 'eXIf' || type === 'tEXt' || type === 'iTXt' || type === 'zTXt') return true;
      if (type === 'IEND') break;
      p += 12 + len;
    }
  }
  return false;
}

export async function imageSize(b: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const m = await sharp(b, { failOn: 'none' }).metadata();
    return m.width && m.height ? { width: m.width, height: m.height } : null;
  } catch {
    return null;
  }
}

export interface ColorShare {
  name: string;
  rgb: [number, number, number];
  hex: string;
  percentage: number;
}

export interface FaceBox {
  age: number;
  score: number;
  bbox: [number, number, number, number];
  class: string;
}

export interface Analysis {
  features: ImageFeatures;
  colors: ColorShare[];
  faces: FaceBox[];
  quality: number;
  qualityUgc: number;
}

const toHex = (rgb: number[]) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');

function nearestPalette(r: number, g: number, b: number): number {
  let best = 0;
  let bestD = Infinity;
  PALETTE.forEach((p, i) => {
    // Weighted distance approximating perceived difference.
    const d = 2 * (r - p.rgb[0]) ** 2 + 4 * (g - p.rgb[1]) ** 2 + 3 * (b - p.rgb[2]) ** 2;
    if (d < bestD) { bestD = d; best = i; }
  });
  return best;
}

const near = (r: number, g: number, b: number, t: [number, number, number], tol = 40) =>
  Math.abs(r - t[0]) <= tol && Math.abs(g - t[1]) <= tol && Math.abs(b - t[2]) <= tol;

/** Each 4-connected region of pure magenta is a face; its bbox is in uploaded-image pixels. */
async function findFaces(buf: Buffer, width: number, height: number): Promise<FaceBox[]> {
  const limit = 1200;
  const scale = Math.max(width, height) > limit ? limit / Math.max(width, height) : 1;
  const img = sharp(buf, { failOn: 'none' }).removeAlpha();
  const { data, info } = await (scale < 1
    ? img.resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'nearest', fit: 'fill' })
    : img
  ).raw().toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const ch = info.channels;
  const magenta = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    if (near(data[i * ch], data[i * ch + 1], data[i * ch + 2], [255, 0, 255])) magenta[i] = 1;
  }
  const seen = new Uint8Array(w * h);
  const faces: FaceBox[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!magenta[start] || seen[start]) continue;
    let x0 = w, y0 = h, x1 = 0, y1 = 0, area = 0;
    stack.push(start);
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      area++;
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      const nb = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1];
      for (const n of nb) if (n >= 0 && magenta[n] && !seen[n]) { seen[n] = 1; stack.push(n); }
    }
    if (area < 16) continue; // specks (JPEG noise) are not faces
    // A second marker colour inside the region's box chooses the age.
    let age = DEFAULT_FACE_AGE;
    search: for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = (y * w + x) * ch;
        const marker = AGE_MARKERS.find((m) => near(data[i], data[i + 1], data[i + 2], m.rgb, 30));
        if (marker) { age = marker.age; break search; }
      }
    }
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    age += ((bw * 7 + bh * 13) % 10) / 10; // stable fraction, stays inside the class
    const inv = 1 / scale;
    faces.push({
      age: Math.round(age * 10) / 10,
      score: Math.round((0.9 + Math.min(0.09, area / (w * h))) * 1000) / 1000,
      bbox: [Math.round(x0 * inv), Math.round(y0 * inv), Math.round((x1 + 1) * inv), Math.round((y1 + 1) * inv)],
      class: ageClass(age),
    });
  }
  return faces;
}

const cache = new Map<string, Promise<Analysis>>();

export function analyseImage(buf: Buffer, video = false): Promise<Analysis> {
  const key = `${video}:${hash(buf.toString('latin1', 0, Math.min(buf.length, 65536)))}:${buf.length}:${hash(buf.toString('latin1', Math.max(0, buf.length - 65536)))}`;
  let p = cache.get(key);
  if (!p) {
    p = analyse(buf, video);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
    if (cache.size > 200) cache.delete(cache.keys().next().value!);
  }
  return p;
}

async function analyse(buf: Buffer, video: boolean): Promise<Analysis> {
  const meta = await sharp(buf, { failOn: 'none' }).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;

  // Colours and brightness from a small copy, the way the service works on ~300 px.
  const small = await sharp(buf, { failOn: 'none' })
    .removeAlpha()
    .resize(96, 96, { fit: 'inside', kernel: 'nearest' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = small.info.width * small.info.height;
  const ch = small.info.channels;
  const buckets = PALETTE.map(() => ({ count: 0, r: 0, g: 0, b: 0 }));
  let lum = 0;
  let sat = 0;
  for (let i = 0; i < n; i++) {
    const r = small.data[i * ch], g = small.data[i * ch + 1], b = small.data[i * ch + 2];
    const k = buckets[nearestPalette(r, g, b)];
    k.count++; k.r += r; k.g += g; k.b += b;
    lum += (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const max = Math.max(r, g, b), min = Math.min(r, g, b);
    sat += max === 0 ? 0 : (max - min) / max;
  }
  const colors: ColorShare[] = buckets
    .map((k, i) => {
      const rgb: [number, number, number] = k.count
        ? [Math.round(k.r / k.count), Math.round(k.g / k.count), Math.round(k.b / k.count)]
        : PALETTE[i].rgb;
      return { name: PALETTE[i].name, rgb, hex: toHex(rgb), percentage: Math.round((k.count / n) * 10000) / 100 };
    })
    .filter((c) => c.percentage > 0)
    .sort((a, b) => b.percentage - a.percentage || a.name.localeCompare(b.name));
  const family: Record<string, number> = {};
  buckets.forEach((k, i) => {
    const f = FAMILY[PALETTE[i].name];
    family[f] = (family[f] ?? 0) + k.count / n;
  });

  // Sharpness: variance of the Laplacian on a grey copy of at most 512 px.
  const grey = await sharp(buf, { failOn: 'none' })
    .removeAlpha()
    .greyscale()
    .resize(512, 512, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const gw = grey.info.width, gh = grey.info.height, gc = grey.info.channels;
  const px = (x: number, y: number) => grey.data[(y * gw + x) * gc];
  let sum = 0, sum2 = 0, cnt = 0;
  for (let y = 1; y < gh - 1; y++) {
    for (let x = 1; x < gw - 1; x++) {
      const l = 4 * px(x, y) - px(x - 1, y) - px(x + 1, y) - px(x, y - 1) - px(x, y + 1);
      sum += l; sum2 += l * l; cnt++;
    }
  }
  const lapVar = cnt ? sum2 / cnt - (sum / cnt) ** 2 : 0;
  const sharpness = 1 - Math.exp(-lapVar / 400);
  const luminance = lum / n;
  const exposure = 1 - Math.min(1, Math.abs(luminance - 0.5) / 0.5);
  const faces = video ? [] : await findFaces(buf, width, height);
  const round4 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 10000) / 10000;
  return {
    features: { family, luminance, saturation: sat / n, aspect: width / height, sharpness, faces: faces.length, video },
    colors,
    faces,
    quality: round4(0.1 + 0.6 * sharpness + 0.3 * exposure),
    qualityUgc: round4(0.05 + 0.65 * sharpness + 0.3 * exposure),
  };
}

/** First frame of a video as PNG, through ffmpeg. */
export async function videoFrame(buf: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'tagsmith-sim-'));
  try {
    const file = join(dir, 'in.bin');
    await writeFile(file, buf);
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (!stdout.length) throw new Error('no frame');
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
