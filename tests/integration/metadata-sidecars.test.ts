import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { cr2Like } from '../fixtures/raw';

// Sidecars by the world's namings, through the CLI as a user runs it: 'IMG.xmp' beside a lone
// JPEG (Apple Photos and Photoshop exports, digiKam's "commercial" naming) is read and
// written; when a RAW and a JPEG share 'IMG.xmp' it is the RAW's (Lightroom's rule) and the
// JPEG keeps its own metadata.

let root: string;
let photos: string;
let library: string;

const xmp = (subject: string[], title: string, description: string): string => `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 6.0.0">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">
   <dc:subject><rdf:Bag>${subject.map((s) => `<rdf:li>${s}</rdf:li>`).join('')}</rdf:Bag></dc:subject>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>
   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${description}</rdf:li></rdf:Alt></dc:description>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;

const subjectOf = (path: string): string[] => {
  const v = (JSON.parse(execFileSync('/usr/bin/exiftool', ['-j', '-XMP-dc:Subject', path], { encoding: 'utf8' })) as Record<string, unknown>[])[0].Subject;
  return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
};

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-sidecars-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos);
  const jpeg = (colour: string) => sharp({ create: { width: 32, height: 24, channels: 3, background: colour } }).jpeg().toBuffer();
  // A lone JPEG with an 'IMG.xmp' sidecar (as Apple Photos exports with "Export IPTC as XMP").
  writeFileSync(join(photos, 'IMG_1001.jpg'), await jpeg('#357'));
  writeFileSync(join(photos, 'IMG_1001.xmp'), xmp(['beach', 'Sommer'], 'Am Meer', 'Kinder am Strand'));
  // A RAW+JPEG pair sharing 'IMG.xmp' (Lightroom writes the RAW's there); the JPEG has its own.
  cr2Like(join(photos, 'IMG_2002.cr2'), await jpeg('#753'), 32, 24);
  writeFileSync(join(photos, 'IMG_2002.jpg'), await jpeg('#753'));
  execFileSync('/usr/bin/exiftool', ['-q', '-overwrite_original', '-XMP-dc:Subject=jpeg-own', '-XMP-dc:Title=JPEG title', join(photos, 'IMG_2002.jpg')]);
  writeFileSync(join(photos, 'IMG_2002.xmp'), xmp(['raw-edit'], 'RAW title', 'RAW caption'));
}, 120_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const show = async (name: string) => {
  const r = await tagsmith(library, ['show', join(photos, name), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ keywords: string[]; title: string | null; caption: string | null }>();
};

describe('sidecars by the world\u2019s namings', () => {
  it('reads and writes IMG.xmp beside a lone JPEG; in a RAW+JPEG pair IMG.xmp is the RAW\u2019s and the JPEG keeps its own', { timeout: 300_000 }, async () => {
    const index = await tagsmith(library, ['index', photos, '--json']);
    expect(index.code, index.stderr).toBe(0);

    expect(await show('IMG_1001.jpg')).toMatchObject({ keywords: ['beach', 'Sommer'], title: 'Am Meer', caption: 'Kinder am Strand' });
    expect(await show('IMG_2002.cr2')).toMatchObject({ keywords: ['raw-edit'], title: 'RAW title', caption: 'RAW caption' });
    expect(await show('IMG_2002.jpg')).toMatchObject({ keywords: ['jpeg-own'], title: 'JPEG title', caption: null });

    const sharedBefore = readFileSync(join(photos, 'IMG_2002.xmp'));
    const tag = await tagsmith(library, ['tag', join(photos, 'IMG_1001.jpg'), join(photos, 'IMG_2002.jpg'), '--add', 'Urlaub', '--json']);
    expect(tag.code, tag.stderr).toBe(0);
    const exp = await tagsmith(library, ['export', join(photos, 'IMG_1001.jpg'), join(photos, 'IMG_2002.jpg'), '--write-files', '--json']);
    expect(exp.code, exp.stderr).toBe(0);
    // The lone JPEG's sidecar got the keyword (and the JPEG itself, only the user's addition:
    // what was read from the sidecar stays there), the RAW's sidecar was not touched by the JPEG's write.
    expect(subjectOf(join(photos, 'IMG_1001.xmp'))).toEqual(['beach', 'Sommer', 'Urlaub']);
    expect(subjectOf(join(photos, 'IMG_1001.jpg'))).toEqual(['Urlaub']);
    expect(subjectOf(join(photos, 'IMG_2002.jpg'))).toEqual(['jpeg-own', 'Urlaub']);
    expect(readFileSync(join(photos, 'IMG_2002.xmp')).equals(sharedBefore)).toBe(true);

    // The RAW's keyword goes to the shared sidecar; the RAW itself is never written.
    const rawBytes = readFileSync(join(photos, 'IMG_2002.cr2'));
    expect((await tagsmith(library, ['tag', join(photos, 'IMG_2002.cr2'), '--add', 'Auswahl', '--json'])).code).toBe(0);
    expect((await tagsmith(library, ['export', join(photos, 'IMG_2002.cr2'), '--write-files', '--json'])).code).toBe(0);
    expect(subjectOf(join(photos, 'IMG_2002.xmp'))).toEqual(['raw-edit', 'Auswahl']);
    expect(readFileSync(join(photos, 'IMG_2002.cr2')).equals(rawBytes)).toBe(true);
    expect(subjectOf(join(photos, 'IMG_2002.jpg'))).toEqual(['jpeg-own', 'Urlaub']);

    // A rescan reads the same: nothing of the RAW's sidecar leaks into the JPEG.
    expect((await tagsmith(library, ['index', photos, '--json'])).code).toBe(0);
    expect([...(await show('IMG_1001.jpg')).keywords].sort()).toEqual(['Sommer', 'Urlaub', 'beach']);
    expect((await show('IMG_2002.jpg')).keywords).toEqual(['jpeg-own', 'Urlaub']);
  });
});
