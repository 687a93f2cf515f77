import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMetadataReader, readMetadata, type Exposure } from '../../src-main/metadata/reader';

// Exposure (aperture, shutter, ISO, focal lengths, compensation, flash) read from real files
// that Debian's exiftool wrote, through both readers (exifr on the buffer, exiftool on the
// path), and compared with what exiftool itself reads from the same file.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagsmith-exposure-'));
});
afterAll(async () => {
  await closeMetadataReader();
  rmSync(dir, { recursive: true, force: true });
});

const exiftool = (args: string[]): string => execFileSync('/usr/bin/exiftool', args, { encoding: 'utf8' });

/** exiftool's own reading: printed values (as a user sees them) and raw numbers. */
function exiftoolExposure(path: string): Exposure {
  const [shown] = JSON.parse(exiftool(['-j', '-G1', '-a', path])) as Record<string, unknown>[];
  const [n] = JSON.parse(exiftool(['-j', '-G1', '-a', '-n', path])) as Record<string, unknown>[];
  const find = (o: Record<string, unknown>, name: string): unknown => {
    for (const g of ['ExifIFD', 'XMP-exif']) if (o[`${g}:${name}`] !== undefined) return o[`${g}:${name}`];
    return undefined;
  };
  const mm = (v: unknown): number | null => (v === undefined ? null : parseFloat(String(v)));
  const flash = find(n, 'Flash');
  const fired = find(shown, 'FlashFired');
  return {
    aperture: find(shown, 'FNumber') === undefined ? (shown['Composite:Aperture'] === undefined ? null : Number(shown['Composite:Aperture'])) : Number(find(shown, 'FNumber')),
    shutter: find(shown, 'ExposureTime') === undefined ? null : String(find(shown, 'ExposureTime')),
    iso: find(n, 'ISO') === undefined ? null : Number(find(n, 'ISO')),
    focalLength: mm(find(shown, 'FocalLength')),
    focalLength35: mm(find(shown, 'FocalLengthIn35mmFormat')),
    exposureBias: find(n, 'ExposureCompensation') === undefined ? null : Math.round(Number(find(n, 'ExposureCompensation')) * 100) / 100,
    flash: flash !== undefined ? (Number(flash) & 1) === 1 : fired !== undefined ? String(fired).toLowerCase() === 'true' : null,
  };
}

async function picture(name: string, make: (s: Sharp) => Sharp, tags: string[]): Promise<string> {
  const path = join(dir, name);
  await make(sharp({ create: { width: 48, height: 32, channels: 3, background: '#864' } })).toFile(path);
  exiftool(['-overwrite_original', ...tags, path]);
  return path;
}

const DAYLIGHT = ['-ExifIFD:FNumber=2.8', '-ExifIFD:ExposureTime=0.004', '-ExifIFD:ISO=400', '-ExifIFD:FocalLength=50',
  '-ExifIFD:FocalLengthIn35mmFormat=75', '-ExifIFD:ExposureCompensation=-0.3333333', '-ExifIFD:Flash#=16'];
const NIGHT = ['-ExifIFD:FNumber=16', '-ExifIFD:ExposureTime=2.5', '-ExifIFD:ISO=6400', '-ExifIFD:FocalLength=23.7',
  '-ExifIFD:ExposureCompensation=1', '-ExifIFD:Flash#=25'];

describe('exposure read from the file', () => {
  const cases: { name: string; format: string; make: (s: Sharp) => Sharp; tags: string[]; want: Exposure }[] = [
    {
      name: 'day.jpg', format: 'jpeg', make: (s) => s.jpeg(), tags: DAYLIGHT,
      want: { aperture: 2.8, shutter: '1/250', iso: 400, focalLength: 50, focalLength35: 75, exposureBias: -0.33, flash: false },
    },
    {
      name: 'night.tif', format: 'tiff', make: (s) => s.tiff(), tags: NIGHT,
      want: { aperture: 16, shutter: '2.5', iso: 6400, focalLength: 23.7, focalLength35: null, exposureBias: 1, flash: true },
    },
    {
      name: 'apex.png', format: 'png', make: (s) => s.png(), tags: ['-ExifIFD:ApertureValue=4', '-ExifIFD:ExposureTime=0.000125', '-ExifIFD:ISO=100'],
      want: { aperture: 4, shutter: '1/8000', iso: 100, focalLength: null, focalLength35: null, exposureBias: null, flash: null },
    },
    {
      name: 'web.webp', format: 'webp', make: (s) => s.webp(), tags: DAYLIGHT,
      want: { aperture: 2.8, shutter: '1/250', iso: 400, focalLength: 50, focalLength35: 75, exposureBias: -0.33, flash: false },
    },
    {
      name: 'plain.jpg', format: 'jpeg', make: (s) => s.jpeg(), tags: ['-ExifIFD:ColorSpace#=1'],
      want: { aperture: null, shutter: null, iso: null, focalLength: null, focalLength35: null, exposureBias: null, flash: null },
    },
  ];

  for (const c of cases) {
    it(`${c.name}: both readers equal exiftool's reading`, async () => {
      const path = await picture(c.name, c.make, c.tags);
      const truth = exiftoolExposure(path);
      expect(truth).toEqual(c.want);
      const fast = await readMetadata(path, { format: c.format, buf: readFileSync(path), sidecarPath: null });
      expect(fast.exposure).toEqual(truth);
      const viaExiftool = await readMetadata(path, { format: c.format, buf: null, sidecarPath: null });
      expect(viaExiftool.exposure).toEqual(truth);
    });
  }

  it('takes exposure from an XMP sidecar when the file itself records none', async () => {
    const path = await picture('raw-like.jpg', (s) => s.jpeg(), ['-ExifIFD:ColorSpace#=1']);
    const sidecar = join(dir, 'raw-like.xmp');
    writeFileSync(sidecar, `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
  exif:FNumber="56/10" exif:ExposureTime="1/60" exif:FocalLength="35/1" exif:ExposureBiasValue="-2/3">
 <exif:ISOSpeedRatings><rdf:Seq><rdf:li>800</rdf:li></rdf:Seq></exif:ISOSpeedRatings>
 <exif:Flash rdf:parseType="Resource"><exif:Fired>True</exif:Fired></exif:Flash>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`);
    const truth = exiftoolExposure(sidecar);
    expect(truth).toEqual({ aperture: 5.6, shutter: '1/60', iso: 800, focalLength: 35, focalLength35: null, exposureBias: -0.67, flash: true });
    const m = await readMetadata(path, { format: 'jpeg', buf: readFileSync(path), sidecarPath: sidecar });
    expect(m.exposure).toEqual(truth);
  });
});
