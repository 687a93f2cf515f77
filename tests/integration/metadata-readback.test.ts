import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeMetadataReader } from '../../src-main/library/metadata';
import { fieldsFromTags } from '../../src-main/metadata/fields';
import { readTags, verifyReadBack, writeFileMetadata } from '../../src-main/metadata/file-writer';

// The read-back check after a write judges changes, not the bytes of exiftool's dump: what
// exiftool itself drops or stamps on any rewrite is no change; a real change to a value the
// user did not edit still keeps the original. And what the user typed arrives exactly.

afterAll(async () => {
  await closeMetadataReader();
});

const tmp = (): string => mkdtempSync(join(tmpdir(), 'tagsmith-readback-'));
const base = { caption: null, title: null, rating: 0 };
const json = (path: string): Record<string, unknown> =>
  (JSON.parse(execFileSync('/usr/bin/exiftool', ['-j', '-G1', '-a', '-n', path], { encoding: 'utf8' })) as Record<string, unknown>[])[0];

/** A darktable 4 sidecar of an edit without masks (the shape darktable writes: an empty masks_history Seq). */
const DARKTABLE_XMP = `<?xml version="1.0" encoding="UTF-8"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
    xmlns:darktable="http://darktable.sf.net/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmp:Rating="1"
    xmpMM:DerivedFrom="IMG_0001.CR2"
    darktable:import_timestamp="63849000000000000"
    darktable:xmp_version="5"
    darktable:raw_params="0"
    darktable:auto_presets_applied="1"
    darktable:history_end="1"
    darktable:iop_order_version="4">
   <darktable:masks_history>
    <rdf:Seq/>
   </darktable:masks_history>
   <darktable:colorlabels>
    <rdf:Seq/>
   </darktable:colorlabels>
   <darktable:history>
    <rdf:Seq>
     <rdf:li
      darktable:num="0"
      darktable:operation="exposure"
      darktable:enabled="1"
      darktable:modversion="6"
      darktable:params="00000000000080b9"
      darktable:multi_name=""
      darktable:multi_priority="0"
      darktable:blendop_version="13"
      darktable:blendop_params="gz11eJxjYGBgYAFiCQYYOOHEgAZY0QVwggZ7CB6pfOygYtaSAgAAANcAAQ=="/>
    </rdf:Seq>
   </darktable:history>
   <dc:subject>
    <rdf:Bag>
     <rdf:li>harbour</rdf:li>
    </rdf:Bag>
   </dc:subject>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
`;

describe('the read-back check judges changes, not bytes', () => {
  it('adds a keyword to a darktable sidecar whose empty masks_history and colorlabels lists exiftool drops', async () => {
    const dir = tmp();
    const sidecar = join(dir, 'IMG_0001.CR2.xmp');
    writeFileSync(sidecar, DARKTABLE_XMP);
    expect(json(sidecar)['XMP-darktable:Masks_history']).toBe('');
    const r = await writeFileMetadata(sidecar, { ...base, rating: 1, keywords: ['harbour', 'boats'] });
    expect(r.changedFields).toEqual(['keywords']);
    const after = json(sidecar);
    expect(after['XMP-dc:Subject']).toEqual(['harbour', 'boats']);
    // darktable's history is intact.
    expect(after['XMP-darktable:HistoryOperation']).toBe('exposure');
    expect(after['XMP-darktable:History_end']).toBe(1);
  });

  it('takes a version stamp, MetadataDate, and the same value spelled another way as no change', () => {
    const before = {
      'XMP-xmp:MetadataDate': '2020:01:01 10:00:00+01:00', 'IPTC:ApplicationRecordVersion': 2, 'XMP-x:XMPToolkit': 'XMP Core 4.4.0-Exiv2',
      'XMP-darktable:Xmp_version': 5, 'XMP-crs:Name': 'Cafe\u0301', 'XMP-darktable:Masks_history': '', 'XMP-digiKam:ColorLabels': [],
      'XMP-mwg-rs:RegionList': [{ Name: 'Anna', Type: 'Face', Area: {} }],
    };
    const after = {
      'XMP-xmp:MetadataDate': '2026:11:27 15:00:00+00:00', 'IPTC:ApplicationRecordVersion': 4, 'XMP-x:XMPToolkit': 'Image::ExifTool 13.59',
      'XMP-darktable:Xmp_version': '5', 'XMP-crs:Name': 'Café',
      'XMP-mwg-rs:RegionList': { Type: 'Face', Name: 'Anna' },
    };
    expect(verifyReadBack(before, after, {})).toBeNull();
  });

  it('still refuses a real change to a value the user did not edit, and names it', () => {
    const problem = verifyReadBack({ 'XMP-darktable:History_end': 3, 'XMP-crs:Exposure2012': '+0.50' }, { 'XMP-darktable:History_end': 3, 'XMP-crs:Exposure2012': '+0.70' }, {});
    expect(problem).toMatch(/XMP-crs:Exposure2012 changed \("\+0\.50" -> "\+0\.70"\)/);
    // A non-empty list that disappears is a change.
    expect(verifyReadBack({ 'XMP-darktable:Masks_history': ['a'] }, {}, {})).toMatch(/XMP-darktable:Masks_history changed/);
  });
});

describe('values round-trip exactly', () => {
  const values = ['A &amp; B', 'Tom & Jerry', 'x < y > z', '&#39;quoted&quot;', 'Côte d\'Azur', 'Ελλάδα', '東京タワー', '𝄞 𠮷 😀'];

  it('keywords, caption and title with &, entities, < and every Unicode plane, in a JPEG and in a new sidecar', async () => {
    const dir = tmp();
    const jpg = join(dir, 'amp.jpg');
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } }).jpeg().toFile(jpg);
    const caption = 'Fish &amp; chips & <b>not bold</b> &#x1F600; 😀';
    const title = 'R&amp;D';
    for (const path of [jpg, join(dir, 'IMG_2.xmp')]) {
      const r = await writeFileMetadata(path, { ...base, keywords: values, caption, title });
      expect(r.after.keywords, path).toEqual(values);
      const tags = await readTags(path);
      expect(tags['XMP-dc:Subject'], path).toEqual(values);
      expect(tags['XMP-dc:Description'], path).toBe(caption);
      expect(tags['XMP-dc:Title'], path).toBe(title);
      if (path === jpg) {
        expect(tags['IPTC:Keywords']).toEqual(values);
        expect(tags['IPTC:Caption-Abstract']).toBe(caption);
      }
      // Written again: in sync, nothing to write.
      expect((await writeFileMetadata(path, { ...base, keywords: values, caption, title })).tags).toEqual([]);
    }
  });
});

describe('a write changes only what the user changed', () => {
  const STAMPS = /^(System|File|ExifTool):|^(SourceFile|XMP-x:XMPToolkit|XMP-xmp:MetadataDate|Photoshop:IPTCDigest|IPTC:ApplicationRecordVersion|IPTC:EnvelopeRecordVersion)$/;
  const diff = (a: Record<string, unknown>, b: Record<string, unknown>): string[] =>
    [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !STAMPS.test(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();

  /** A JPEG whose EXIF, IPTC and XMP say different things (edited over years by different tools). */
  async function mixed(path: string, extra: string[] = []): Promise<void> {
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#468' } }).jpeg().toFile(path);
    execFileSync('/usr/bin/exiftool', ['-q', '-overwrite_original',
      '-EXIF:ImageDescription=Camera description', '-EXIF:Artist=Camera Owner', '-EXIF:Copyright=(c) Camera Owner',
      '-IPTC:Caption-Abstract=Old newsroom caption', '-IPTC:By-line=Newsroom', '-IPTC:City=Lyon', '-IPTC:CopyrightNotice=(c) Agency',
      '-IPTC:Keywords=harbour', '-IPTC:Keywords=boats',
      '-XMP-dc:Description=XMP description', '-XMP-dc:Creator=Anna Berg', '-XMP-dc:Creator=Jon Berg', '-XMP-dc:Rights=(c) Berg',
      '-XMP-photoshop:City=Paris', '-XMP-dc:Subject=harbour', '-XMP-dc:Subject=boats',
      '-XMP-lr:HierarchicalSubject=harbour', '-XMP-lr:HierarchicalSubject=Places|France|Paris',
      '-XMP-digiKam:TagsList=harbour', '-XMP-digiKam:TagsList=Places/France/Paris',
      ...extra, path]);
  }

  it('adding a keyword changes keyword tags only: EXIF, IPTC and XMP keep their own captions, creators, city, copyright; dc:creator keeps both names', async () => {
    const file = join(tmp(), 'mixed.jpg');
    await mixed(file);
    const before = json(file);
    const fields = fieldsFromTags(await readTags(file));
    const r = await writeFileMetadata(file, { ...fields, keywords: [...fields.keywords, 'ferry'] });
    expect(r.changedFields).toEqual(['keywords']);
    const after = json(file);
    expect(diff(before, after)).toEqual(['IPTC:Keywords', 'XMP-dc:Subject', 'XMP-digiKam:TagsList', 'XMP-lr:HierarchicalSubject']);
    expect(after['XMP-dc:Creator']).toEqual(['Anna Berg', 'Jon Berg']);
    expect(after['IFD0:ImageDescription']).toBe('Camera description');
    expect(after['IPTC:City']).toBe('Lyon');
    expect(after['XMP-dc:Subject']).toEqual(['harbour', 'boats', 'Places', 'France', 'Paris', 'ferry']);
    expect(after['XMP-lr:HierarchicalSubject']).toEqual(['harbour', 'Places|France|Paris', 'ferry']);
    expect(after['XMP-digiKam:TagsList']).toEqual(['harbour', 'Places/France/Paris', 'ferry']);
    // Plain ASCII keywords need no character set declared.
    expect(after['IPTC:CodedCharacterSet']).toBeUndefined();
  });

  it('a stale IPTC digest stays stale, so readers keep taking the IPTC values the user did not edit', async () => {
    const file = join(tmp(), 'stale.jpg');
    await mixed(file, ['-Photoshop:IPTCDigest=00000000000000000000000000000000']);
    const fields = fieldsFromTags(await readTags(file));
    await writeFileMetadata(file, { ...fields, keywords: [...fields.keywords, 'ferry'] });
    const after = json(file);
    expect(after['Photoshop:IPTCDigest']).toBe('00000000000000000000000000000000');
    expect(after['XMP-photoshop:City']).toBe('Paris');
    expect(after['IPTC:City']).toBe('Lyon');
  });

  it('an edited field gets the new value in every block that holds it', async () => {
    const file = join(tmp(), 'edit.jpg');
    await mixed(file);
    const fields = fieldsFromTags(await readTags(file));
    await writeFileMetadata(file, { ...fields, caption: 'New caption', creator: 'Carla Ruiz', copyright: '(c) Carla Ruiz', city: 'Nice' });
    const after = json(file);
    for (const k of ['IFD0:ImageDescription', 'IPTC:Caption-Abstract', 'XMP-dc:Description']) expect(after[k], k).toBe('New caption');
    for (const k of ['IFD0:Artist', 'IPTC:By-line', 'XMP-dc:Creator']) expect(after[k], k).toBe('Carla Ruiz');
    for (const k of ['IFD0:Copyright', 'IPTC:CopyrightNotice', 'XMP-dc:Rights']) expect(after[k], k).toBe('(c) Carla Ruiz');
    for (const k of ['IPTC:City', 'XMP-photoshop:City']) expect(after[k], k).toBe('Nice');
  });
});
