// Where a write goes, in a folder of many files: only the names that may share the photo's
// stem are compared (issue 18: a 1,000-photo write lowered every name of the folder for each
// photo), with the same answers, case-insensitively, as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mayStartWith, targetsFor } from '../../src-main/metadata/targets';

const dir = mkdtempSync(join(tmpdir(), 'targets-folder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('targetsFor in a folder of many files', () => {
  // 1,500 other photos around the ones looked at.
  for (let i = 0; i < 1500; i++) writeFileSync(join(dir, `IMG_${String(i).padStart(5, '0')}.jpg`), '');
  for (const f of ['Shot_1.JPG', 'SHOT_1.jpg.XMP', 'Beach.CR2', 'BEACH.jpg', 'BEACH.XMP', 'Lone.CR2', 'Other.jpg', 'Other.xmp', 'Ünïcode.NEF', 'ünïcode.xmp', 'A.jpg'])
    writeFileSync(join(dir, f), '');

  it('keeps a sidecar named in another case beside a JPEG', async () => {
    expect(await targetsFor(join(dir, 'Shot_1.JPG'))).toEqual([
      { path: join(dir, 'Shot_1.JPG'), role: 'file', caps: { iptc: true, exif: 'always' } },
      { path: join(dir, 'SHOT_1.jpg.XMP'), role: 'sidecar', caps: { iptc: false, exif: 'never' } },
    ]);
  });

  it('finds the RAW sibling and the stem sidecar whatever their case', async () => {
    // The RAW writes to the existing 'BEACH.XMP'; the JPEG beside a RAW never takes the RAW's sidecar.
    expect((await targetsFor(join(dir, 'Beach.CR2'))).map((t) => t.path)).toEqual([join(dir, 'BEACH.XMP')]);
    expect((await targetsFor(join(dir, 'BEACH.jpg'))).map((t) => t.path)).toEqual([join(dir, 'BEACH.jpg')]);
    expect((await targetsFor(join(dir, 'Lone.CR2'))).map((t) => t.path)).toEqual([join(dir, 'Lone.xmp')]);
    expect((await targetsFor(join(dir, 'Ünïcode.NEF'))).map((t) => t.path)).toEqual([join(dir, 'ünïcode.xmp')]);
    expect((await targetsFor(join(dir, 'A.jpg'))).map((t) => t.path)).toEqual([join(dir, 'A.jpg')]);
  });

  it('compares names without case, ASCII exactly and anything else left to the full comparison', () => {
    expect(mayStartWith('IMG_00012.jpg', 'img_00012')).toBe(true);
    expect(mayStartWith('IMG_00013.jpg', 'img_00012')).toBe(false);
    expect(mayStartWith('IMG_0001', 'img_00012')).toBe(false);
    expect(mayStartWith('Ünïcode.NEF', 'img')).toBe(true);
    expect(mayStartWith('abc', 'ünï')).toBe(true);
    expect(mayStartWith('img_1.xmp', 'img_1')).toBe(true);
  });
});
