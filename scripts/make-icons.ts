// Makes every icon the packages need from resources/icon.svg (the one drawn source):
//   resources/icon.png        1024x1024 (electron-builder's default, and the window icon)
//   resources/icons/NxN.png   16..1024, the Linux icon set (AppImage, deb, hicolor theme)
//   resources/icon.icns       macOS (PNG-encoded entries, ic04..ic14)
//   resources/icon.ico        Windows (PNG-encoded entries, 16..256)
// Run: npm run icons [-- OUTDIR]. The generated files are committed, so packaging needs no
// extra step (a test makes them again into a scratch folder and compares).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

const svg = join(import.meta.dirname, '..', 'resources', 'icon.svg');

const png = (size: number): Promise<Buffer> =>
  sharp(svg, { density: Math.max(72, Math.ceil((72 * size) / 1024) * 4) }).resize(size, size).png({ compressionLevel: 9 }).toBuffer();

/** ICO: a header, one directory entry per image, then the PNGs (Windows Vista and later read PNG entries). */
export function encodeIco(images: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(images.length, 4);
  const dir = Buffer.alloc(16 * images.length);
  let offset = 6 + dir.length;
  images.forEach((img, i) => {
    const e = i * 16;
    dir.writeUInt8(img.size >= 256 ? 0 : img.size, e); // 0 means 256
    dir.writeUInt8(img.size >= 256 ? 0 : img.size, e + 1);
    dir.writeUInt8(0, e + 2); // no palette
    dir.writeUInt8(0, e + 3);
    dir.writeUInt16LE(1, e + 4); // colour planes
    dir.writeUInt16LE(32, e + 6); // bits per pixel
    dir.writeUInt32LE(img.data.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += img.data.length;
  });
  return Buffer.concat([header, dir, ...images.map((i) => i.data)]);
}

/** ICNS: 'icns' + total length, then (type, length, PNG) entries. */
export function encodeIcns(entries: { type: string; data: Buffer }[]): Buffer {
  const parts = entries.map((e) => {
    const head = Buffer.alloc(8);
    head.write(e.type, 0, 'ascii');
    head.writeUInt32BE(8 + e.data.length, 4);
    return Buffer.concat([head, e.data]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

/** The ICNS types that hold PNG data, with their pixel size. */
const ICNS_TYPES: [string, number][] = [
  ['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512], ['ic10', 1024],
  ['ic11', 32], ['ic12', 64], ['ic13', 256], ['ic14', 512],
];

export async function makeIcons(root: string): Promise<void> {
  const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
  const pngs = new Map<number, Buffer>();
  for (const s of sizes) pngs.set(s, await png(s));
  mkdirSync(join(root, 'icons'), { recursive: true });
  for (const [s, data] of pngs) writeFileSync(join(root, 'icons', `${s}x${s}.png`), data);
  writeFileSync(join(root, 'icon.png'), pngs.get(1024)!);
  writeFileSync(join(root, 'icon.ico'), encodeIco([16, 24, 32, 48, 64, 128, 256].map((size) => ({ size, data: pngs.get(size)! }))));
  writeFileSync(join(root, 'icon.icns'), encodeIcns(ICNS_TYPES.map(([type, size]) => ({ type, data: pngs.get(size)! }))));
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const out = process.argv[2] ?? join(import.meta.dirname, '..', 'resources');
  await makeIcons(out);
  console.log(`icons written to ${out}`);
}
