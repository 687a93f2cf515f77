import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeMetadataReader, readMetadata, type FileMetadata } from '../../src-main/metadata/reader';

// Reading what exiftool reads, in every block: XML references decoded, IPTC inside TIFF,
// EXIF first for description / creator / copyright (exiftool's MWG composites), the ISO a
// camera keeps only in its maker notes, a date kept only in a vendor block. Each through the
// fast reader (the scan's buffer) and through exiftool.

afterAll(async () => {
  await closeMetadataReader();
});

const EXIFTOOL = '/usr/bin/exiftool';
const tmp = (): string => mkdtempSync(join(tmpdir(), 'tagsmith-reading-'));
const exiftool = (args: string[]): string => execFileSync(EXIFTOOL, args, { encoding: 'utf8' });

async function bothReaders(path: string, format: string): Promise<FileMetadata[]> {
  return [
    await readMetadata(path, { format, buf: readFileSync(path), sidecarPath: null }),
    await readMetadata(path, { format, buf: null, sidecarPath: null }),
  ];
}

describe('reading as exiftool reads', () => {
  it('decodes XML character and entity references in XMP once: d&#39;Azur, &amp;amp;, &#x1F600;', async () => {
    const dir = tmp();
    const packet = join(dir, 'packet.xmp');
    writeFileSync(packet, `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Côte d&#39;Azur</rdf:li></rdf:Alt></dc:title>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">Fish &amp;amp; chips &lt;3 &#x1F600;</rdf:li></rdf:Alt></dc:description>
<dc:subject><rdf:Bag><rdf:li>R&amp;D</rdf:li><rdf:li>&#x6771;&#20140;</rdf:li></rdf:Bag></dc:subject>
</rdf:Description></rdf:RDF></x:xmpmeta>`);
    const file = join(dir, 'azur.jpg');
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#28c' } }).jpeg().toFile(file);
    exiftool(['-q', '-overwrite_original', `-xmp<=${packet}`, file]);
    // exiftool's own reading, the reference.
    expect(exiftool(['-b', '-XMP-dc:Title', file])).toBe('Côte d\'Azur');
    for (const m of await bothReaders(file, 'jpeg')) {
      expect(m.title).toBe('Côte d\'Azur');
      expect(m.caption).toBe('Fish &amp; chips <3 😀');
      expect(m.keywords).toEqual(['R&D', '東京']);
    }
  });

  it('reads IPTC from a TIFF that holds IPTC alone (stored as LONGs, as scanners and Photoshop write it)', async () => {
    const file = join(tmp(), 'scan.tif');
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#777' } }).tiff().toFile(file);
    exiftool(['-q', '-overwrite_original', '-IPTC:Keywords=Oma', '-IPTC:Keywords=Strand', '-IPTC:Caption-Abstract=Oma am Strand, 1962',
      '-IPTC:ObjectName=Sommer 1962', '-IPTC:By-line=Foto Müller', file]);
    expect(exiftool(['-v3', file])).toMatch(/IPTC-NAA[\s\S]*int32u/);
    for (const m of await bothReaders(file, 'tiff')) {
      expect(m.keywords).toEqual(['Oma', 'Strand']);
      expect(m.caption).toBe('Oma am Strand, 1962');
      expect(m.title).toBe('Sommer 1962');
      expect(m.rights.creator).toBe('Foto Müller');
    }
  });

  it('takes EXIF description, artist and copyright first, as exiftool\u2019s MWG composites do', async () => {
    const file = join(tmp(), 'mixed.jpg');
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#963' } }).jpeg().toFile(file);
    exiftool(['-q', '-overwrite_original', '-EXIF:ImageDescription=From the camera', '-EXIF:Artist=Anna Berg; Jon Berg', '-EXIF:Copyright=(c) Berg',
      '-IPTC:Caption-Abstract=From the newsroom', '-IPTC:By-line=Newsroom', '-XMP-dc:Description=From Lightroom', '-XMP-dc:Creator=Someone else',
      '-XMP-dc:Rights=(c) Someone', file]);
    const mwg = JSON.parse(exiftool(['-j', '-use', 'MWG', '-MWG:Description', '-MWG:Creator', '-MWG:Copyright', file]))[0] as Record<string, unknown>;
    expect(mwg).toMatchObject({ Description: 'From the camera', Creator: ['Anna Berg', 'Jon Berg'], Copyright: '(c) Berg' });
    for (const m of await bothReaders(file, 'jpeg')) {
      expect(m.caption).toBe('From the camera');
      expect(m.rights.creator).toBe('Anna Berg');
      expect(m.rights.copyright).toBe('(c) Berg');
    }
  });

  it('reads the ISO a Canon compact keeps only in its maker notes (exiftool\u2019s Composite:ISO)', async () => {
    const file = resolve(__dirname, '../fixtures/world/cameras/canon-powershot-s40.jpg');
    const tags = JSON.parse(exiftool(['-j', '-G1', '-n', '-ISO', file]))[0] as Record<string, unknown>;
    expect(tags['ExifIFD:ISO']).toBeUndefined();
    expect(tags['Composite:ISO']).toBe(100);
    for (const m of await bothReaders(file, 'jpeg')) {
      expect(m.exposure.iso).toBe(100);
      expect(m.takenAt).toBe('2003-12-14T12:01:44');
    }
  });

  it('reads a capture date a camera kept only in its vendor block (a Casio QV\u2019s QVCI segment), as exiftool reads it', async () => {
    const file = resolve(__dirname, '../fixtures/world/cameras/casio-qv-date-in-vendor-block.jpg');
    const tags = JSON.parse(exiftool(['-j', '-G1', '-a', '-time:all', file]))[0] as Record<string, unknown>;
    expect(tags['ExifIFD:DateTimeOriginal']).toBeUndefined();
    expect(tags['ExifIFD:CreateDate']).toBeUndefined();
    expect(tags['Casio:DateTimeOriginal']).toBe('1998:10:24 12:08:57');
    for (const m of await bothReaders(file, 'jpeg')) expect(m.takenAt).toBe('1998-10-24T12:08:57');
  });

  it('reads a day without a time (Photo Mechanic\u2019s photoshop:DateCreated) as that day\u2019s midnight when no source has a time, as exiftool\u2019s MWG does', async () => {
    const file = join(tmp(), 'photo-mechanic.jpg');
    writeFileSync(file, readFileSync(resolve(__dirname, '../fixtures/world/photomechanic/photo-mechanic.jpg')));
    // Without the IPTC date and time, only XMP's day is left.
    exiftool(['-q', '-overwrite_original', '-IPTC:DateCreated=', '-IPTC:TimeCreated=', file]);
    const mwg = JSON.parse(exiftool(['-j', '-G1', '-use', 'MWG', '-MWG:DateTimeOriginal', '-XMP-photoshop:DateCreated', file]))[0] as Record<string, unknown>;
    expect(mwg).toMatchObject({ 'XMP-photoshop:DateCreated': '2006:10:29', 'MWG:DateTimeOriginal': '2006:10:29' });
    for (const m of await bothReaders(file, 'jpeg')) expect(m.takenAt).toBe('2006-10-29T00:00:00');
    // With them, the time the photographer\u2019s camera recorded wins over the bare day.
    const whole = resolve(__dirname, '../fixtures/world/photomechanic/photo-mechanic.jpg');
    for (const m of await bothReaders(whole, 'jpeg')) expect(m.takenAt).toBe('2006-10-29T06:27:51-05:00');
  });
});
