// Real result files for finished tasks: WAV audio, MP4 video, PNG and SVG images.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { hash } from './vocabulary.js';

const run = promisify(execFile);

/** 16 kHz mono 16-bit PCM; about 60 ms of speech per character, 0.5..60 s. */
export function makeWav(text: string): Buffer {
  const rate = 16000;
  const seconds = Math.min(60, Math.max(0.5, text.length * 0.06));
  const samples = Math.round(rate * seconds);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0, 'latin1');
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVEfmt ', 8, 'latin1');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'latin1');
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    // One tone per character, so the audio follows the text.
    const c = text.charCodeAt(Math.floor((i / samples) * text.length)) || 32;
    const f = 180 + (c % 40) * 12;
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * f * i) / rate) * 8000), 44 + i * 2);
  }
  return buf;
}

const videoCache = new Map<string, Promise<Buffer>>();

/** A short MP4 (testsrc + tone) at the requested resolution; cached per resolution. */
export function makeMp4(resolution: string): Promise<Buffer> {
  let p = videoCache.get(resolution);
  if (!p) {
    p = renderMp4(resolution);
    videoCache.set(resolution, p);
    p.catch(() => videoCache.delete(resolution));
  }
  return p;
}

async function renderMp4(resolution: string): Promise<Buffer> {
  const h = Number.parseInt(resolution, 10) || 480;
  const w = Math.round((h * 16) / 9 / 2) * 2;
  const dir = await mkdtemp(join(tmpdir(), 'tagsmith-sim-'));
  try {
    const out = join(dir, 'out.mp4');
    await run('ffmpeg', [
      '-v', 'error', '-f', 'lavfi', '-i', `testsrc=size=${w}x${h}:rate=10:duration=1`,
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', out,
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A PNG of the given size whose colours come from the prompt. */
export async function makePng(prompt: string, width: number, height: number, source?: Buffer): Promise<Buffer> {
  if (source) {
    try {
      return await sharp(source, { failOn: 'none' }).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 1 }).toBuffer();
    } catch {
      // fall through to a generated picture
    }
  }
  const h = hash(prompt);
  const c1 = { r: h & 255, g: (h >> 8) & 255, b: (h >> 16) & 255 };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="rgb(${c1.r},${c1.g},${c1.b})"/>` +
    `<circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="rgb(${255 - c1.r},${255 - c1.g},${255 - c1.b})"/></svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
}

export function makeSvg(prompt: string, colors: number[][] = []): Buffer {
  const h = hash(prompt);
  const palette = colors.length ? colors : [[h & 255, (h >> 8) & 255, (h >> 16) & 255], [255 - (h & 255), 128, 200]];
  const shapes = palette
    .map((c, i) => `<circle cx="${200 + i * 40}" cy="${300 - i * 20}" r="${160 - i * 10}" fill="rgb(${c.join(',')})"/>`)
    .join('');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="0 0 1024 1024"><title>${escapeXml(prompt)}</title>${shapes}</svg>\n`);
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
