import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { fieldsFromTags } from '../../src-main/metadata/fields';
import { factOf, readTags, verifyReadBack, writeFileMetadata } from '../../src-main/metadata/file-writer';

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

// Sidecars in the shapes Lightroom Classic, digiKam, Capture One and Apple Photos write, built
// here from their documented structure (none of those programs runs here, so these are not
// world files; tests/fixtures/world has the ones real tools wrote).
const RDF_HEAD = (toolkit: string, ns: string, attrs: string): string => `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="${toolkit}">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:lr="http://ns.adobe.com/lightroom/1.0/"
    xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" ${ns}
   ${attrs}>`;
const RDF_TAIL = `
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
const li = (tag: string, kind: 'Bag' | 'Seq', items: string[]): string => `<${tag}><rdf:${kind}>${items.map((i) => `<rdf:li>${i}</rdf:li>`).join('')}</rdf:${kind}></${tag}>`;
const alt = (tag: string, text: string): string => `<${tag}><rdf:Alt><rdf:li xml:lang="x-default">${text}</rdf:li></rdf:Alt></${tag}>`;

const SHAPES: Record<string, string> = {
  'lightroom/IMG_0001.xmp': RDF_HEAD('Adobe XMP Core 7.0-c000 1.000000, 0000/00/00-00:00:00        ',
    'xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"',
    `xmp:Rating="3" xmp:Label="Red" xmp:MetadataDate="2023-06-01T10:00:00+02:00" photoshop:SidecarForExtension="CR3" photoshop:DateCreated="2023-05-31T18:22:10.12"
   aux:Lens="RF24-105mm F4 L IS USM" xmpMM:DocumentID="xmp.did:8d1c0c0e" crs:Version="15.3" crs:ProcessVersion="11.0" crs:Exposure2012="+0.35" crs:HasSettings="True"`)
    + li('xmpMM:History', 'Seq', []).replace('<rdf:Seq></rdf:Seq>', '<rdf:Seq><rdf:li stEvt:action="saved" stEvt:instanceID="xmp.iid:1" stEvt:when="2023-06-01T10:00:00+02:00" stEvt:softwareAgent="Adobe Photoshop Lightroom Classic 12.3 (Macintosh)" stEvt:changed="/metadata"/></rdf:Seq>')
    + li('dc:creator', 'Seq', ['Anna Berg', 'Jon Berg']) + alt('dc:rights', '© 2023 Anna Berg') + alt('dc:title', 'Abend')
    + li('dc:subject', 'Bag', ['Berlin', 'Europe', 'Places', 'street']) + li('lr:hierarchicalSubject', 'Bag', ['Places|Europe|Berlin', 'street'])
    + li('crs:ToneCurvePV2012', 'Seq', ['0, 0', '255, 255']) + RDF_TAIL,
  'digikam/IMG_0002.CR2.xmp': RDF_HEAD('XMP Core 4.4.0-Exiv2',
    'xmlns:digiKam="http://www.digikam.org/ns/1.0/" xmlns:MicrosoftPhoto="http://ns.microsoft.com/photo/1.0/" xmlns:darktable="http://darktable.sf.net/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"',
    'xmp:Rating="4" digiKam:ColorLabel="3" digiKam:PickLabel="2" MicrosoftPhoto:Rating="75" tiff:Make="Canon"')
    + li('digiKam:TagsList', 'Seq', ['Orte/Europa/Lyon', 'Familie']) + li('MicrosoftPhoto:LastKeywordXMP', 'Bag', ['Orte/Europa/Lyon', 'Familie'])
    + li('lr:hierarchicalSubject', 'Bag', ['Orte|Europa|Lyon', 'Familie']) + li('dc:subject', 'Bag', ['Lyon', 'Familie'])
    + li('darktable:colorlabels', 'Seq', []).replace('<rdf:Seq></rdf:Seq>', '<rdf:Seq/>') + alt('dc:description', 'Oma &amp; Opa') + RDF_TAIL,
  'captureone/IMG_0003.xmp': RDF_HEAD('XMP Core 5.5.0', 'xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"',
    'xmp:Rating="2" xmp:Label="Green" photoshop:City="Nice" photoshop:Country="France" photoshop:Headline="Promenade" Iptc4xmpCore:Location="Promenade des Anglais"')
    + li('dc:subject', 'Bag', ['Meer', 'Promenade']) + li('lr:hierarchicalSubject', 'Bag', ['Meer', 'Promenade']) + li('dc:creator', 'Seq', ['Carla Ruiz']) + RDF_TAIL,
  'applephotos/IMG_0004.xmp': RDF_HEAD('XMP Core 6.0.0', 'xmlns:exif="http://ns.adobe.com/exif/1.0/"',
    'photoshop:DateCreated="2024-07-14T20:15:03+02:00" exif:GPSLatitude="43,41.9500N" exif:GPSLongitude="7,15.7200E"')
    + alt('dc:title', 'Feuerwerk') + alt('dc:description', 'Über der Baie des Anges') + li('dc:subject', 'Bag', ['Feuerwerk', '14. Juli']) + RDF_TAIL,
};

describe('sidecars in the shapes other programs write (built from their documented structure)', () => {
  const STAMPS = /^(System|File|ExifTool|Composite):|^(SourceFile|XMP-x:XMPToolkit|XMP-xmp:MetadataDate)$/;
  const KEYWORDS = /^(XMP-dc:Subject|XMP-lr:HierarchicalSubject|XMP-digiKam:TagsList|XMP-microsoft:LastKeywordXMP)$/;

  it('adding a keyword changes only the keyword lists each already holds, and adds it to every one', async () => {
    const dir = tmp();
    for (const [rel, text] of Object.entries(SHAPES)) {
      const path = join(dir, rel.replace('/', '-'));
      writeFileSync(path, text);
      const before = json(path);
      expect(before['XMP-dc:Subject'], rel).toBeDefined();
      const fields = fieldsFromTags(await readTags(path));
      const r = await writeFileMetadata(path, { ...fields, keywords: [...fields.keywords, 'Neu'] });
      expect(r.changedFields, rel).toEqual(['keywords']);
      const after = json(path);
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
        .filter((k) => !STAMPS.test(k) && JSON.stringify(factOf(before[k])) !== JSON.stringify(factOf(after[k])));
      expect(changed.filter((k) => !KEYWORDS.test(k)), rel).toEqual([]);
      for (const k of changed) expect([after[k]].flat(), `${rel} ${k}`).toContain('Neu');
      for (const k of Object.keys(before).filter((x) => KEYWORDS.test(x))) {
        expect([after[k]].flat(), `${rel} ${k}`).toEqual(expect.arrayContaining([before[k]].flat()));
      }
      // Lightroom's one-level entries and digiKam's / Windows' paths all got the new keyword.
      if (before['XMP-lr:HierarchicalSubject'] !== undefined) expect([after['XMP-lr:HierarchicalSubject']].flat(), rel).toContain('Neu');
      if (before['XMP-digiKam:TagsList'] !== undefined) expect([after['XMP-digiKam:TagsList']].flat(), rel).toContain('Neu');
      if (before['XMP-microsoft:LastKeywordXMP'] !== undefined) expect([after['XMP-microsoft:LastKeywordXMP']].flat(), rel).toContain('Neu');
    }
  });
});
