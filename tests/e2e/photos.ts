import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

// A small, real photo tree for end-to-end tests: JPEGs of different colours, names,
// cameras and capture dates, written with EXIF so the indexer has something to read.

export interface TestPhoto {
  /** Relative path inside the tree. */
  file: string;
  colour: [number, number, number];
  make: string;
  model: string;
  /** EXIF DateTimeOriginal, 'YYYY:MM:DD HH:MM:SS'. */
  taken: string;
  width?: number;
  height?: number;
}

export const PHOTOS: readonly TestPhoto[] = [
  { file: 'beach-sunset.jpg', colour: [226, 120, 48], make: 'Canon', model: 'Canon EOS R5', taken: '2023:07:14 19:02:11' },
  { file: 'forest-path.jpg', colour: [46, 110, 58], make: 'NIKON CORPORATION', model: 'NIKON Z 6', taken: '2023:05:02 10:15:00', width: 480, height: 640 },
  { file: 'mountain-lake.jpg', colour: [52, 98, 168], make: 'Canon', model: 'Canon EOS R5', taken: '2022:09:21 08:40:30' },
  { file: 'city-night.jpg', colour: [58, 40, 92], make: 'SONY', model: 'ILCE-7M3', taken: '2024:01:03 22:11:45' },
  { file: 'red-door.jpg', colour: [170, 36, 40], make: 'SONY', model: 'ILCE-7M3', taken: '2021:11:30 14:05:09' },
  { file: 'trips/snow-field.jpg', colour: [222, 228, 236], make: 'Canon', model: 'Canon EOS R5', taken: '2022:02:12 12:00:00' },
];

/** Writes the photos into a fresh temp folder (or `root`) and returns its path. */
export async function makePhotoTree(photos: readonly TestPhoto[] = PHOTOS, root = mkdtempSync(join(tmpdir(), 'tagsmith-photos-'))): Promise<string> {
  for (const p of photos) {
    const path = join(root, p.file);
    mkdirSync(dirname(path), { recursive: true });
    const width = p.width ?? 640;
    const height = p.height ?? 427;
    // A gradient-ish image (a solid base with a lighter band) so thumbnails look like something.
    const band = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="white" stop-opacity="0.35"/><stop offset="1" stop-color="black" stop-opacity="0.35"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width * 0.7}" cy="${height * 0.35}" r="${Math.min(width, height) * 0.12}" fill="white" fill-opacity="0.5"/></svg>`,
    );
    await sharp({ create: { width, height, channels: 3, background: { r: p.colour[0], g: p.colour[1], b: p.colour[2] } } })
      .composite([{ input: band }])
      .withExif({ IFD0: { Make: p.make, Model: p.model, DateTime: p.taken }, IFD2: { DateTimeOriginal: p.taken } })
      .jpeg({ quality: 85 })
      .toFile(path);
  }
  return root;
}
