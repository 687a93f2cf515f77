import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith } from '../helpers/cli';
import { closeMetadataReader, readMetadata } from '../../src-main/metadata/reader';
import { extOf, formatForExt } from '../../src-main/library/formats';
import { factOf } from '../../src-main/metadata/file-writer';
import { combinedReading, compareReadings, exiftoolJsonMany, exiftoolReadings, type Tags } from '../fixtures/real-world';

// The world corpus (tests/fixtures/world/README.md: real camera JPEGs and RAWs, and files
// written by Lightroom, Photoshop/Camera Raw, Photo Mechanic, digiKam, darktable, exiv2 and
// exiftool, none by Tagsmith): Tagsmith reads every file as exiftool
// reads it, and after `tag --add` of one keyword and `export --write-files` through the CLI
// the keyword is in every file or its sidecar, and nothing but keyword tags (and the stamps
// any rewrite updates) differs.

const WORLD = resolve(__dirname, '../fixtures/world');

interface WorldFile {
  rel: string;
  format: string;
  isRaw: boolean;
  sidecar: string | null;
}

let root: string;
let photos: string;
let library: string;
let files: WorldFile[];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-world-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  cpSync(WORLD, photos, { recursive: true, filter: (src) => !src.endsWith('.md') });
  files = walk(photos).filter((p) => formatForExt(extOf(p)) !== null).map((p) => {
    const f = formatForExt(extOf(p))!;
    const exact = `${p}.xmp`;
    const byStem = p.replace(/\.[^./]+$/, '.xmp');
    return { rel: relative(photos, p), format: f.format, isRaw: f.isRaw, sidecar: existsSync(exact) ? relative(photos, exact) : existsSync(byStem) ? relative(photos, byStem) : null };
  }).sort((a, b) => a.rel.localeCompare(b.rel));
});

afterAll(async () => {
  await closeMetadataReader();
  rmSync(root, { recursive: true, force: true });
});

const abs = (rel: string): string => join(photos, rel);

describe('the world corpus', () => {
  it('is there, with its sidecars paired by the world\u2019s namings', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
    expect(files.filter((f) => f.sidecar).map((f) => f.sidecar)).toEqual(['darktable/IMG_S40.jpg.xmp', 'exiv2/DSC_0982.xmp', 'raw/canon-eos-350d.xmp']);
  });

  it('reads every file as exiftool reads it (keywords, title, caption, creator, copyright, rating, label, date, exposure)', { timeout: 300_000 }, async () => {
    const paths = files.flatMap((f) => [abs(f.rel), ...(f.sidecar ? [abs(f.sidecar)] : [])]);
    const refs = exiftoolReadings(paths);
    const failures: string[] = [];
    let checked = 0;
    for (const f of files) {
      const ref = combinedReading(refs.get(abs(f.rel))!, f.sidecar ? refs.get(abs(f.sidecar))! : null, f.isRaw);
      for (const buf of [readFileSync(abs(f.rel)), null]) {
        const ours = await readMetadata(abs(f.rel), { format: f.format, buf, sidecarPath: f.sidecar ? abs(f.sidecar) : null, isRaw: f.isRaw });
        for (const c of compareReadings(ref, ours)) {
          checked++;
          if (!c.equal) failures.push(`${f.rel} (${buf ? 'fast' : 'exiftool'}): ${c.field} exiftool=${JSON.stringify(c.exiftool)} tagsmith=${JSON.stringify(c.tagsmith)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('after tag --add and export --write-files the keyword is in 100% of the files, and only keyword tags changed', { timeout: 600_000 }, async () => {
    const index = await tagsmith(library, ['index', photos, '--json']);
    expect(index.code, index.stderr).toBe(0);
    const targets = files.flatMap((f) => [f.rel, ...(f.sidecar ? [f.sidecar] : [])]);
    const tagsOf = (): Map<string, Tags> => {
      const m = exiftoolJsonMany(targets.map(abs));
      return new Map(targets.map((rel) => [rel, m.get(abs(rel))!]));
    };
    const before = tagsOf();
    // A camera RAW is never written (DNG is, in place, as Lightroom does: README "Sidecars").
    const rawBytes = new Map(files.filter((f) => f.isRaw && f.format !== 'dng').map((f) => [f.rel, readFileSync(abs(f.rel))]));

    const all = files.map((f) => abs(f.rel));
    const KEYWORD = 'Welt & Test';
    const tag = await tagsmith(library, ['tag', ...all, '--add', KEYWORD, '--json']);
    expect(tag.code, tag.stderr).toBe(0);
    const exp = await tagsmith(library, ['export', ...all, '--write-files', '--json']);
    const result = JSON.parse(exp.stdout) as { failed: number; assets: { path: string; status: string; error?: string }[] };
    expect(result.assets.filter((a) => a.error).map((a) => `${a.path}: ${a.error}`)).toEqual([]);
    expect(exp.code, exp.stderr).toBe(0);

    const after = tagsOf();
    // A RAW without a sidecar gets a new one, IMG.xmp (Lightroom's naming): the keyword lands there.
    const created = new Map(files.filter((f) => !f.sidecar).map((f): [string, string] => [f.rel, abs(f.rel).replace(/\.[^./]+$/, '.xmp')]).filter(([, p]) => existsSync(p)));
    expect([...created.keys()].sort()).toEqual(files.filter((f) => f.isRaw && f.format !== 'dng' && !f.sidecar).map((f) => f.rel).sort());
    const createdTags = exiftoolJsonMany([...created.values()]);
    const KEYWORD_TAGS = /^(IPTC:Keywords|XMP-dc:Subject|XMP-lr:HierarchicalSubject|XMP-digiKam:TagsList|IFD0:XPKeywords)$/;
    // What any rewrite changes: file-system facts and byte offsets, the IPTC digest, MetadataDate,
    // the toolkit; and where the keywords start an IPTC block, its version stamps and (for a
    // keyword that is not ASCII) the UTF-8 declaration of the keyword tags.
    // exiftool also stamps the IPTC record versions it maintains (an envelope record that holds
    // only Lightroom's CodedCharacterSet gains its mandatory EnvelopeRecordVersion).
    const STAMPS = /^(System|File|ExifTool|Composite):|^(SourceFile|XMP-x:XMPToolkit|XMP-xmp:MetadataDate|Photoshop:IPTCDigest|IPTC:ApplicationRecordVersion|IPTC:EnvelopeRecordVersion)$|(Offsets?|Start|Position|ByteCount|Length)$/;
    const IPTC_STAMPS = /^IPTC:CodedCharacterSet$/;
    const problems: string[] = [];
    for (const f of files) {
      const held = [f.rel, ...(f.sidecar ? [f.sidecar] : [])];
      const landed = [...held.map((rel) => after.get(rel)!), ...(created.has(f.rel) ? [createdTags.get(created.get(f.rel)!)!] : [])]
        .some((t) => [t['XMP-dc:Subject']].flat().map(String).includes(KEYWORD));
      if (!landed) problems.push(`${f.rel}: ${KEYWORD} landed nowhere`);
      for (const rel of held) {
        const b = before.get(rel)!;
        const a = after.get(rel)!;
        for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
          if (STAMPS.test(k) || KEYWORD_TAGS.test(k)) continue;
          if (IPTC_STAMPS.test(k) && b['IPTC:Keywords'] === undefined && b[k] === undefined) continue;
          // An empty list or structure exiftool drops (darktable's <rdf:Seq/>) holds no value.
          if (JSON.stringify(factOf(b[k])) !== JSON.stringify(factOf(a[k]))) problems.push(`${rel}: ${k} changed ${JSON.stringify(b[k] ?? null)} -> ${JSON.stringify(a[k] ?? null)}`);
        }
        // Keywords that were there are all still there.
        const kw = (t: Tags): string[] => [...Object.keys(t)].filter((k) => KEYWORD_TAGS.test(k)).flatMap((k) => [t[k]].flat().map(String));
        const lost = kw(b).filter((k) => !kw(a).includes(k));
        if (lost.length) problems.push(`${rel}: keywords lost: ${lost.join(', ')}`);
      }
    }
    for (const [rel, bytes] of rawBytes) if (!readFileSync(abs(rel)).equals(bytes)) problems.push(`${rel}: RAW bytes changed`);
    expect(problems).toEqual([]);

    // A second export finds every file in sync.
    const again = JSON.parse((await tagsmith(library, ['export', ...all, '--write-files', '--json'])).stdout) as { assets: { path: string; status: string }[] };
    expect(again.assets.filter((a) => a.status !== 'in_sync')).toEqual([]);
  });

  it('a value Tagsmith does not take into the library (a Lightroom export\u2019s rights URL) survives export after export', { timeout: 120_000 }, async () => {
    const dir = join(root, 'rights-url');
    const lib = join(root, 'rights-url-lib');
    mkdirSync(dir);
    cpSync(join(WORLD, 'lightroom/egret-lightroom-6.10.1.jpg'), join(dir, 'egret.jpg'));
    const photo = join(dir, 'egret.jpg');
    const url = (): unknown => exiftoolJsonMany([photo]).get(photo)!['XMP-xmpRights:WebStatement'];
    expect(url()).toBe('http://raingod.com/info/copyright');
    expect((await tagsmith(lib, ['index', dir, '--json'])).code).toBe(0);
    expect((await tagsmith(lib, ['tag', photo, '--add', 'Reiher', '--json'])).code).toBe(0);
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = JSON.parse((await tagsmith(lib, ['export', photo, '--write-files', '--json'])).stdout) as { assets: { status: string; changedFields: string[] }[] };
      statuses.push(`${r.assets[0].status}:${r.assets[0].changedFields.join(',')}`);
    }
    // Only the keyword is written, once; the rights URL the user never touched stays.
    expect(statuses).toEqual(['written:keywords', 'in_sync:', 'in_sync:']);
    expect(url()).toBe('http://raingod.com/info/copyright');
  });
});
