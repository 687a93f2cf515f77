import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src-main/library/context';
import { closeMetadataReader, readMetadata, sharedExifTool } from '../../src-main/metadata/reader';
import { fieldsFromTags } from '../../src-main/metadata/fields';
import { readTags, removeStaleTemps, writeFileMetadata, MetadataWriteError } from '../../src-main/metadata/file-writer';
import { previewWrite } from '../../src-main/metadata/preview';
import { getSyncState } from '../../src-main/metadata/file-state';
import { writeAssetMetadata } from '../../src-main/metadata/writer';
import { seedAsset, seedFolder } from '../helpers/seed';

// Real files, real exiftool reading the results back.

afterAll(async () => {
  await closeMetadataReader();
});

const tmp = (): string => mkdtempSync(join(tmpdir(), 'tagsmith-meta-'));
const et = () => sharedExifTool();

/** A JPEG with an ICC profile, EXIF camera data, GPS and another tool's XMP. */
async function makePhoto(path: string, extra: Record<string, unknown> = {}): Promise<void> {
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6' } })
    .withIccProfile('p3')
    .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5', Software: 'Test' } })
    .jpeg()
    .toFile(path);
  await et().write(path, {
    'ExifIFD:DateTimeOriginal': '2024:05:06 07:08:09',
    'ExifIFD:LensModel': 'RF24-70mm F2.8 L IS USM',
    'GPS:GPSLatitude': 52.5163, 'GPS:GPSLatitudeRef': 'N', 'GPS:GPSLongitude': 13.3777, 'GPS:GPSLongitudeRef': 'E',
    'XMP-crs:Exposure2012': '+0.50',
    'XMP-xmpMM:DocumentID': 'xmp.did:other-tool-1234',
    ...extra,
  } as never, { writeArgs: ['-overwrite_original'], useMWG: false });
}

const raw = async (path: string): Promise<Record<string, unknown>> =>
  (await et().readRaw(path, ['-G1', '-n'])) as unknown as Record<string, unknown>;
const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
const icc = (path: string): Buffer => execFileSync('/usr/bin/exiftool', ['-b', '-ICC_Profile', path]);

const base = { caption: null, title: null, rating: 0 };

describe('writing keywords, captions and titles into a JPEG', () => {
  it('keeps Cyrillic, umlauts and French/Portuguese accents intact in IPTC and XMP, and the indexer reads them back in order', async () => {
    const dir = tmp();
    const file = join(dir, 'photo.jpg');
    await makePhoto(file);
    const keywords = ['Москва', 'Köln', 'Straße', 'église', 'São Paulo', 'coração', 'Ærø'];
    const caption = 'Über die Brücke — l’été à São João, «Красная площадь»';
    const title = 'Rosé à Évora';
    const r = await writeFileMetadata(file, { ...base, keywords, caption, title, rating: 4 });
    expect(r.changedFields.sort()).toEqual(['caption', 'keywords', 'rating', 'title']);
    const t = await raw(file);
    expect(list(t['IPTC:Keywords'])).toEqual(keywords);
    expect(list(t['XMP-dc:Subject'])).toEqual(keywords);
    expect(t['IPTC:CodedCharacterSet']).toBe('\u001b%G');
    expect(t['IPTC:Caption-Abstract']).toBe(caption);
    expect(t['XMP-dc:Description']).toBe(caption);
    expect(t['IFD0:ImageDescription']).toBe(caption);
    expect(t['IPTC:ObjectName']).toBe(title);
    expect(t['XMP-dc:Title']).toBe(title);
    expect(t['XMP-xmp:Rating']).toBe(4);
    // The library's reader (exifr path, as at index time) sees exactly what was written.
    const read = await readMetadata(file, { format: 'jpeg', buf: readFileSync(file), sidecarPath: null });
    expect(read.keywords).toEqual(keywords);
    expect(read.caption).toBe(caption);
    expect(read.title).toBe(title);
    expect(read.rating).toBe(4);
  });

  it('writes a hierarchy as lr:hierarchicalSubject plus its flattened components, as Lightroom does', async () => {
    const dir = tmp();
    const file = join(dir, 'h.jpg');
    await makePhoto(file);
    await writeFileMetadata(file, { ...base, keywords: ['Animals|Mammals|Cat', 'Sunset'] });
    const t = await raw(file);
    expect(list(t['XMP-lr:HierarchicalSubject'])).toEqual(['Animals|Mammals|Cat']);
    expect(list(t['XMP-dc:Subject'])).toEqual(['Animals', 'Mammals', 'Cat', 'Sunset']);
    expect(list(t['IPTC:Keywords'])).toEqual(['Animals', 'Mammals', 'Cat', 'Sunset']);
    const read = await readMetadata(file, { format: 'jpeg', buf: readFileSync(file), sidecarPath: null });
    expect(new Set(read.keywords)).toEqual(new Set(['Animals|Mammals|Cat', 'Sunset']));
    // Written again with the same library value: nothing to do.
    const again = await writeFileMetadata(file, { ...base, keywords: ['Animals|Mammals|Cat', 'Sunset'] });
    expect(again.tags).toEqual([]);
  });

  it('leaves EXIF, GPS, maker data, the ICC profile and other tools\u2019 XMP exactly as they were', async () => {
    const dir = tmp();
    const file = join(dir, 'keep.jpg');
    await makePhoto(file);
    const before = await raw(file);
    const iccBefore = icc(file);
    await writeFileMetadata(file, { ...base, keywords: ['Berlin', 'Brandenburger Tor'], caption: 'Abendlicht', title: 'Tor', rating: 5 });
    const after = await raw(file);
    const managed = /^(IPTC:|XMP-dc:(Subject|Description|Title)|XMP-lr:|XMP-xmp:Rating|IFD0:ImageDescription|XMP-x:XMPToolkit|File:|System:|ExifTool:|Composite:|MWG:|SourceFile)/;
    const keep = (t: Record<string, unknown>) => Object.fromEntries(Object.entries(t).filter(([k]) => !managed.test(k)));
    expect(keep(after)).toEqual(keep(before));
    expect(after['GPS:GPSLatitude']).toBeCloseTo(52.5163, 4);
    expect(after['XMP-crs:Exposure2012']).toBe(before['XMP-crs:Exposure2012']);
    expect(after['XMP-xmpMM:DocumentID']).toBe('xmp.did:other-tool-1234');
    expect(after['IFD0:Make']).toBe('Canon');
    expect(icc(file).equals(iccBefore)).toBe(true);
    expect(iccBefore.length).toBeGreaterThan(100);
    // The pixels are untouched too.
    const px = await sharp(file).raw().toBuffer();
    expect(px.length).toBe(64 * 48 * 3);
  });

  it('is minimal: unchanged keywords keep the file\u2019s casing and order; an unchanged file is not rewritten', async () => {
    const dir = tmp();
    const file = join(dir, 'min.jpg');
    await makePhoto(file, { 'IPTC:Keywords': ['sunset', 'beach'], 'XMP-dc:Subject': ['sunset', 'beach'], 'XMP-dc:Title': 'Old title' });
    const bytes = readFileSync(file);
    // The library spells them its own way (vocabulary casing): that is not a change.
    const same = await writeFileMetadata(file, { ...base, keywords: ['Sunset', 'Beach'], title: 'Old title' });
    expect(same.changedFields).toEqual([]);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    // Adding one keyword writes the keyword field only, and keeps 'sunset' as the file had it.
    const r = await writeFileMetadata(file, { ...base, keywords: ['Sunset', 'Beach', 'Sea'], title: 'Old title' });
    expect(r.changedFields).toEqual(['keywords']);
    const t = await raw(file);
    expect(list(t['IPTC:Keywords'])).toEqual(['sunset', 'beach', 'Sea']);
    expect(list(t['XMP-dc:Subject'])).toEqual(['sunset', 'beach', 'Sea']);
    expect(t['XMP-dc:Title']).toBe('Old title');
    expect(t['IPTC:ObjectName']).toBeUndefined(); // title unchanged: not copied into IPTC either
  });

  it('writes into a JPEG that has no EXIF block at all (as many exporters save them)', async () => {
    const file = join(tmp(), 'bare.jpg');
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).jpeg().toFile(file);
    const r = await writeFileMetadata(file, { ...base, keywords: ['sky', 'Москва'], caption: 'Blue sky over water', title: 'Sky', rating: 3 });
    expect(r.changedFields).toEqual(['keywords', 'caption', 'title', 'rating']);
    const tags = await raw(file);
    expect(list(tags['IPTC:Keywords'])).toEqual(['sky', 'Москва']);
    expect(tags['XMP-dc:Description']).toBe('Blue sky over water');
    expect(tags['IFD0:ImageDescription']).toBe('Blue sky over water');
  });

  it('shortens an over-long keyword in IPTC only, at a character boundary, and says so', async () => {
    const dir = tmp();
    const file = join(dir, 'long.jpg');
    await makePhoto(file);
    const long = 'Donaudampfschifffahrtsgesellschaftskapitänsmützenhalterungsschraubenöl';
    expect(Buffer.byteLength(long)).toBeGreaterThan(64);
    const r = await writeFileMetadata(file, { ...base, keywords: ['kurz', long] });
    expect(r.warnings).toEqual([`IPTC Keywords: “${long}” shortened to 64 bytes (it is kept whole in XMP).`]);
    const t = await raw(file);
    const iptc = list(t['IPTC:Keywords']);
    expect(iptc[0]).toBe('kurz');
    expect(Buffer.byteLength(iptc[1])).toBeLessThanOrEqual(64);
    expect(long.startsWith(iptc[1])).toBe(true);
    expect(iptc[1]).not.toContain('\ufffd');
    expect(list(t['XMP-dc:Subject'])).toEqual(['kurz', long]);
  });

  it('writes the rights fields to IPTC Core and XMP, a reject as Rating -1, and leaves unmanaged ones alone', async () => {
    const dir = tmp();
    const file = join(dir, 'rights.jpg');
    await makePhoto(file, { 'XMP-photoshop:Credit': 'Agentur Süd' });
    await writeFileMetadata(file, {
      ...base, keywords: ['x'], rating: 3, rejected: true,
      headline: 'Schlagzeile', creator: 'Zoë Ångström-Łukasiewicz de São Brás', copyright: '© 2026 Zoë', city: 'Zürich', country: 'Schweiz',
    });
    const t = await raw(file);
    expect(t['XMP-xmp:Rating']).toBe(-1);
    expect(t['XMP-photoshop:Headline']).toBe('Schlagzeile');
    expect(t['IPTC:Headline']).toBe('Schlagzeile');
    expect(t['XMP-dc:Creator']).toBe('Zoë Ångström-Łukasiewicz de São Brás');
    expect(Buffer.byteLength(String(t['IPTC:By-line']))).toBeLessThanOrEqual(32);
    expect(t['XMP-dc:Rights']).toBe('© 2026 Zoë');
    expect(t['IPTC:CopyrightNotice']).toBe('© 2026 Zoë');
    expect(t['XMP-photoshop:City']).toBe('Zürich');
    expect(t['IPTC:Country-PrimaryLocationName']).toBe('Schweiz');
    expect(t['XMP-photoshop:Credit']).toBe('Agentur Süd'); // credit undefined: not managed, untouched
    const read = await readMetadata(file, { format: 'jpeg', buf: readFileSync(file), sidecarPath: null });
    expect(read.rating).toBe(0);
  });

  it('converts existing Latin-1 IPTC to UTF-8 so values Tagsmith does not manage stay readable', async () => {
    const dir = tmp();
    const file = join(dir, 'latin.jpg');
    await makePhoto(file);
    execFileSync('/usr/bin/exiftool', ['-overwrite_original', '-charset', 'iptc=Latin', '-IPTC:By-line=Jürgen Müller', file]);
    expect((await raw(file))['IPTC:CodedCharacterSet']).toBeUndefined();
    await writeFileMetadata(file, { ...base, keywords: ['Zürich'] });
    const t = await raw(file);
    expect(t['IPTC:By-line']).toBe('Jürgen Müller');
    expect(list(t['IPTC:Keywords'])).toEqual(['Zürich']);
  });

  it('writes XMP into PNG, WebP, HEIC and MP4 in place', async () => {
    const dir = tmp();
    const png = join(dir, 'a.png');
    const webp = join(dir, 'a.webp');
    const mp4 = join(dir, 'a.mp4');
    const heic = join(dir, 'a.heic');
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } }).heif({ compression: 'av1' }).toFile(heic);
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } }).png().toFile(png);
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } }).webp().toFile(webp);
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', mp4]);
    for (const f of [png, webp, heic, mp4]) {
      await writeFileMetadata(f, { ...base, keywords: ['Łódź', 'été'], caption: 'Ночь' });
      const t = await raw(f);
      expect(list(t['XMP-dc:Subject'])).toEqual(['Łódź', 'été']);
      expect(t['XMP-dc:Description']).toBe('Ночь');
      expect(t['IPTC:Keywords']).toBeUndefined();
    }
    for (const f of [png, webp, heic]) expect((await sharp(f).raw().toBuffer({ resolveWithObject: true })).info.width).toBe(16);
  });
});

describe('safety: the original is byte-identical after any failure', () => {
  const noTemps = (dir: string) => expect(readdirSync(dir).filter((n) => n.includes('.tagsmith-'))).toEqual([]);

  it('when the read-back check fails', async () => {
    const dir = tmp();
    const file = join(dir, 'v.jpg');
    await makePhoto(file);
    chmodSync(file, 0o640);
    const bytes = readFileSync(file);
    const err = await writeFileMetadata(file, { ...base, keywords: ['x'] }, {
      tamperReadBack: (t) => { t['IPTC:Keywords'] = 'y'; },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MetadataWriteError);
    expect((err as Error).message).toMatch(/did not read back correctly.*IPTC:Keywords/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    noTemps(dir);
    // A successful write keeps the file's permissions.
    await writeFileMetadata(file, { ...base, keywords: ['x'] });
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('when another program replaces the file mid-way', async () => {
    const dir = tmp();
    const file = join(dir, 'r.jpg');
    await makePhoto(file);
    const other = join(dir, 'other.jpg');
    await makePhoto(other, { 'XMP-dc:Title': 'theirs' });
    const err = await writeFileMetadata(file, { ...base, keywords: ['mine'] }, {
      beforeCommit: () => copyFileSync(other, file),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/changed while Tagsmith was writing/);
    expect(readFileSync(file).equals(readFileSync(other))).toBe(true);
    noTemps(dir);
  });

  it('when exiftool cannot write the file at all', async () => {
    const dir = tmp();
    const file = join(dir, 'broken.jpg');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0x00, 0x10]), Buffer.alloc(40, 7)]));
    const bytes = readFileSync(file);
    const err = await writeFileMetadata(file, { ...base, keywords: ['x'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MetadataWriteError);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    noTemps(dir);
  });

  // Writes the two keyword sets into one file in turn until killed.
  const WORKER = `
    const { writeFileMetadata } = await import(${JSON.stringify(join(process.cwd(), 'src-main/metadata/file-writer.ts'))});
    const file = process.argv[1];
    const sets = [['alpha', 'Ölberg'], ['beta', 'Ночь', 'coração']];
    for (let i = 0; ; i++) {
      await writeFileMetadata(file, { keywords: sets[i % 2], caption: null, title: null, rating: 0 });
      process.stdout.write('wrote\\n');
    }`;

  it('a write killed at random moments leaves the file old or new, and valid', async () => {
    const dir = tmp();
    const file = join(dir, 'k.jpg');
    await makePhoto(file);
    const A = ['alpha', 'Ölberg'];
    const B = ['beta', 'Ночь', 'coração'];
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', WORKER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      // Wait until it has written at least once (ready marker), then kill it a random moment later.
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('wrote')) resolve(); });
        child.on('exit', () => reject(new Error('worker exited early')));
      });
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 120)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const meta = await sharp(file).metadata();
      expect(meta.width).toBe(64);
      await sharp(file).raw().toBuffer();
      const kw = fieldsFromTags(await readTags(file)).keywords;
      expect([A.join(','), B.join(',')]).toContain(kw.join(','));
    }
    // Temps a killed writer left behind are hidden, and swept before the next batch.
    await removeStaleTemps(dir);
    noTemps(dir);
    expect(readdirSync(dir)).toEqual(['k.jpg']);
  });
});

describe('assets: sidecars for RAW, RAW+JPEG pairs, status and preview', () => {
  it('merges into an existing Lightroom-named sidecar, keeps the other tool\u2019s tags, and never clobbers the JPEG twin', async () => {
    const dir = tmp();
    const data = tmp();
    const rawFile = join(dir, 'IMG_0001.CR2');
    const jpg = join(dir, 'IMG_0001.JPG');
    const sidecar = join(dir, 'IMG_0001.xmp');
    writeFileSync(rawFile, Buffer.from('not really a raw file, the bytes do not matter here'));
    await makePhoto(jpg);
    await et().write(sidecar, { 'XMP-crs:Exposure2012': '+1.00', 'XMP-crs:WhiteBalance': 'Daylight', 'XMP-dc:Subject': ['Old'], 'XMP-xmp:Label': 'Red' } as never, { useMWG: false });
    const rawBytes = readFileSync(rawFile);
    const ctx = openLibrary(data);
    const folderId = seedFolder(ctx.db, dir);
    const rawId = seedAsset(ctx.db, { folderId, relPath: 'IMG_0001.CR2', format: 'cr2', isRaw: true, keywords: ['Old', 'Гора', 'Animals|Dog'], caption: 'Schnee am Gipfel', rating: 3 });
    const jpgId = seedAsset(ctx.db, { folderId, relPath: 'IMG_0001.JPG', format: 'jpeg', keywords: ['JPEG only'], caption: 'Die JPEG-Fassung' });
    // The sidecar's label, as the scan reads it into the catalogue (left alone by this write).
    ctx.db.prepare("UPDATE assets SET color_label = 'Red' WHERE id = ?").run(rawId);

    const preview = await previewWrite(ctx, [rawId]);
    expect(preview.problems).toEqual([]);
    expect(preview.changes.map((c) => [c.path, c.field]).sort()).toEqual([[sidecar, 'caption'], [sidecar, 'keywords'], [sidecar, 'rating']]);

    const r = await writeAssetMetadata(ctx, rawId);
    expect(r.status).toBe('written');
    expect(r.files.map((f) => [f.path, f.role])).toEqual([[sidecar, 'sidecar']]);
    const s = await raw(sidecar);
    expect(s['XMP-crs:Exposure2012']).toBe('+1.00');
    expect(s['XMP-crs:WhiteBalance']).toBe('Daylight');
    expect(s['XMP-xmp:Label']).toBe('Red');
    expect(list(s['XMP-dc:Subject'])).toEqual(['Old', 'Гора', 'Animals', 'Dog']);
    expect(list(s['XMP-lr:HierarchicalSubject'])).toEqual(['Animals|Dog']);
    expect(s['XMP-dc:Description']).toBe('Schnee am Gipfel');
    expect(readFileSync(rawFile).equals(rawBytes)).toBe(true);
    expect(getSyncState(ctx, rawId).status).toBe('written');

    const sidecarBytes = readFileSync(sidecar);
    const rj = await writeAssetMetadata(ctx, jpgId);
    expect(rj.files.map((f) => [f.path, f.role])).toEqual([[jpg, 'file']]);
    expect(readFileSync(sidecar).equals(sidecarBytes)).toBe(true);
    expect(list((await raw(jpg))['IPTC:Keywords'])).toEqual(['JPEG only']);
    // The in-place write updated size/mtime so the next scan does not re-index it as changed.
    const row = ctx.db.prepare('SELECT size, mtime_ms FROM assets WHERE id = ?').get(jpgId) as { size: number; mtime_ms: number };
    expect(row.size).toBe(statSync(jpg).size);

    // The library's reader finds the same values in the sidecar.
    const read = await readMetadata(rawFile, { format: 'cr2', buf: null, sidecarPath: sidecar });
    expect(new Set(read.keywords)).toEqual(new Set(['Old', 'Гора', 'Animals|Dog']));
    expect(read.caption).toBe('Schnee am Gipfel');

    // An edit in the library is an unsaved change until written.
    ctx.db.prepare("UPDATE assets SET caption = 'Neuschnee' WHERE id = ?").run(rawId);
    expect(getSyncState(ctx, rawId)).toMatchObject({ status: 'unsaved', unsavedFields: ['caption'] });
    ctx.db.close();
  });

  it('creates a sidecar for a RAW without one, and records a failure with its reason', async () => {
    const dir = tmp();
    const ctx = openLibrary(tmp());
    const folderId = seedFolder(ctx.db, dir);
    writeFileSync(join(dir, 'DSC_0042.NEF'), 'raw bytes');
    const id = seedAsset(ctx.db, { folderId, relPath: 'DSC_0042.NEF', format: 'nef', isRaw: true, keywords: ['Fluss'], title: 'Brücke' });
    const r = await writeAssetMetadata(ctx, id);
    expect(r.files[0]).toMatchObject({ path: join(dir, 'DSC_0042.xmp'), created: true, role: 'sidecar' });
    expect((await raw(join(dir, 'DSC_0042.xmp')))['XMP-dc:Title']).toBe('Brücke');

    writeFileSync(join(dir, 'bad.jpg'), 'not a jpeg');
    const bad = seedAsset(ctx.db, { folderId, relPath: 'bad.jpg', format: 'jpeg', keywords: ['x'] });
    const rb = await writeAssetMetadata(ctx, bad);
    expect(rb.status).toBe('failed');
    expect(rb.error).toBeTruthy();
    expect(getSyncState(ctx, bad)).toMatchObject({ status: 'failed', error: rb.error });
    expect(readFileSync(join(dir, 'bad.jpg'), 'utf8')).toBe('not a jpeg');
    ctx.db.close();
  });
});
