import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsmith, type CliRun } from '../helpers/cli';
import { findAssetByPath, getAssetDetail } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { closeMetadataReader, readMetadata } from '../../src-main/metadata/reader';
import {
  buildCorpus, combinedReading, compareReadings, exiftoolJsonMany, exiftoolReadings, type CorpusFile, type Reading, type Tags,
} from '../fixtures/real-world';

// Real-world metadata structures (tests/fixtures/real-world.ts, built with Debian's exiftool,
// heif-enc and ffmpeg): Tagsmith reads every field as exiftool reads it, and after a keyword
// (and caption) edit written through the CLI (`tag --add`, `caption --set`, `export
// --write-files`), the files differ from before only in what was edited, every foreign
// keyword still there and every field the user did not edit as it was, in every block.

let root: string;
let corpus: string;
let library: string;
let files: CorpusFile[];

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-real-')));
  corpus = join(root, 'photos');
  library = join(root, 'lib');
  files = await buildCorpus(corpus);
}, 300_000);

afterAll(async () => {
  await closeMetadataReader();
  rmSync(root, { recursive: true, force: true });
});

const abs = (rel: string): string => join(corpus, rel);

/** exiftool's reading of every corpus file (with its sidecar, by the documented rule). */
function readings(): Map<string, Reading> {
  const paths = files.flatMap((f) => [abs(f.rel), ...(f.sidecar ? [abs(f.sidecar)] : [])]);
  const r = exiftoolReadings(paths);
  return new Map(files.map((f) => [f.rel, combinedReading(r.get(abs(f.rel))!, f.sidecar ? r.get(abs(f.sidecar))! : null, f.isRaw === true)]));
}

const cli = (args: string[]): Promise<CliRun> => tagsmith(library, args);

describe('reading real-world structures', () => {
  it('reads every field of every structure as exiftool reads it, through the fast reader and through exiftool', { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    let checked = 0;
    const refs = readings();
    for (const f of files) {
      const ref = refs.get(f.rel)!;
      const sidecarPath = f.sidecar ? abs(f.sidecar) : null;
      for (const buf of [readFileSync(abs(f.rel)), null]) {
        const ours = await readMetadata(abs(f.rel), { format: f.format, buf, sidecarPath, isRaw: f.isRaw });
        for (const c of compareReadings(ref, ours)) {
          checked++;
          if (!c.equal) failures.push(`${f.structure} (${buf ? 'fast' : 'exiftool'}): ${c.field} exiftool=${JSON.stringify(c.exiftool)} tagsmith=${JSON.stringify(c.tagsmith)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Not vacuous: the corpus carries well over a hundred values.
    expect(checked).toBeGreaterThan(200);
  });

  it('says which block it took when IPTC and XMP disagree, by the IPTC digest', async () => {
    const read = async (rel: string) => (await readMetadata(abs(rel), { format: 'jpeg', buf: readFileSync(abs(rel)), sidecarPath: null }));
    const none = await read('disagree-nodigest.jpg');
    expect(none.blockDisagreement).toEqual({ fields: ['keywords', 'caption', 'title'], took: 'xmp', digest: 'absent' });
    expect(none.caption).toBe('Neue Bildunterschrift');
    // The union, XMP's order first, IPTC's extra keyword after it.
    expect(none.keywords).toEqual(['neu', 'gemeinsam', 'alt']);
    const match = await read('disagree-digest-match.jpg');
    expect(match.blockDisagreement).toMatchObject({ took: 'xmp', digest: 'matches' });
    const stale = await read('disagree-digest-stale.jpg');
    expect(stale.blockDisagreement).toEqual({ fields: ['keywords', 'caption', 'creator'], took: 'iptc', digest: 'differs' });
    expect(stale.caption).toBe('Von der Redaktion korrigiert');
    expect(stale.rights.creator).toBe('Redaktion');
    expect(stale.keywords).toEqual(['zuerst', 'gemeinsam', 'xmp-only']);
    expect((await read('iptc-utf8.jpg')).blockDisagreement).toBeNull();
  });
});

// ---------------------------------------------------------------------------- writing

const NEW_KEYWORD = 'Neu von Tagsmith';
const KEYWORD_TAGS = new Set(['IPTC:Keywords', 'XMP-dc:Subject', 'XMP-lr:HierarchicalSubject', 'IFD0:XPKeywords']);
const CAPTION_TAGS = new Set(['XMP-dc:Description', 'IPTC:Caption-Abstract', 'IFD0:ImageDescription']);
/** What any rewrite changes: file-system facts, byte offsets, the tool's marks, the IPTC digest and charset. */
const VOLATILE = /^(System|File|ExifTool|Composite):|^(SourceFile|XMP-x:XMPToolkit|Photoshop:IPTCDigest|IPTC:CodedCharacterSet|IPTC:ApplicationRecordVersion|IPTC:EnvelopeRecordVersion|RIFF:WebP_Flags|QuickTime:MediaDataSize)$|(Offsets?|Start|Position|ByteCount)$/;
/** EXIF tags exiftool adds when it creates an EXIF block (a caption written into ImageDescription). */
const NEW_EXIF = new Set(['IFD0:XResolution', 'IFD0:YResolution', 'IFD0:ResolutionUnit', 'IFD0:YCbCrPositioning', 'ExifIFD:ExifVersion',
  'ExifIFD:ComponentsConfiguration', 'ExifIFD:FlashpixVersion', 'ExifIFD:ColorSpace', 'ExifIFD:ExifImageWidth', 'ExifIFD:ExifImageHeight']);

function changedTags(before: Tags, after: Tags): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !VOLATILE.test(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
const lower = (xs: string[]): string[] => xs.map((x) => x.toLocaleLowerCase()).sort();

describe('writing into real-world structures', () => {
  // Five CLI runs over the whole corpus on a machine that may be busy: a generous limit, no timing asserted.
  it('after tag --add, caption --set and export --write-files, only the edited fields changed, foreign keywords kept, unedited fields as they were in every block', { timeout: 600_000 }, async () => {
    const index = await cli(['index', corpus, '--json']);
    expect(index.code, index.stderr).toBe(0);

    // The catalogue records which files' blocks disagreed and what was taken (the inspector shows it).
    const lib = openLibrary(library);
    const detail = (rel: string) => getAssetDetail(lib, findAssetByPath(lib, abs(rel))!);
    try {
      expect(detail('disagree-digest-stale.jpg').blockDisagreement).toEqual({ fields: ['keywords', 'caption', 'creator'], took: 'iptc', digest: 'differs' });
      expect(detail('disagree-nodigest.jpg').blockDisagreement).toEqual({ fields: ['keywords', 'caption', 'title'], took: 'xmp', digest: 'absent' });
      expect(detail('iptc-utf8.jpg').blockDisagreement).toBeNull();
    } finally {
      lib.db.close();
    }

    // What every file (and sidecar) holds before, and what exiftool reads from it.
    const written = (f: CorpusFile): string[] => (f.isRaw ? [f.sidecar!] : f.sidecar ? [f.rel, f.sidecar] : [f.rel]);
    const rels = files.flatMap((f) => [f.rel, ...(f.sidecar ? [f.sidecar] : [])]);
    const tagsOf = (): Map<string, Tags> => {
      const m = exiftoolJsonMany(rels.map(abs));
      return new Map(rels.map((rel) => [rel, m.get(abs(rel))!]));
    };
    const before = tagsOf();
    const readingBefore = readings();

    const all = files.map((f) => abs(f.rel));
    const tag = await cli(['tag', ...all, '--add', NEW_KEYWORD, '--json']);
    expect(tag.code, tag.stderr).toBe(0);
    for (const f of files.filter((x) => x.captionEdit)) {
      const c = await cli(['caption', abs(f.rel), '--set', f.captionEdit!, '--json']);
      expect(c.code, c.stderr).toBe(0);
    }
    const exp = await cli(['export', ...all, '--write-files', '--json']);
    expect(exp.code, exp.stderr).toBe(0);
    const result = JSON.parse(exp.stdout) as { failed: number; assets: { path: string; status: string; changedFields: string[]; error?: string }[] };
    expect(result.assets.filter((a) => a.error)).toEqual([]);

    const problems: string[] = [];
    const afterTags = tagsOf();
    const readingAfter = readings();
    for (const f of files) {
      const report = result.assets.find((a) => a.path === abs(f.rel))!;
      // Only what the user changed is reported as changed (not the caption and title a weaker reading missed).
      const expectFields = f.captionEdit ? ['caption', 'keywords'] : ['keywords'];
      if (JSON.stringify([...report.changedFields].sort()) !== JSON.stringify(expectFields)) problems.push(`${f.rel}: changedFields ${report.changedFields.join(',')}`);

      for (const rel of [f.rel, ...(f.sidecar ? [f.sidecar] : [])]) {
        const b = before.get(rel)!;
        const a = afterTags.get(rel)!;
        const allowed = written(f).includes(rel)
          ? (k: string): boolean => KEYWORD_TAGS.has(k) || (f.captionEdit !== undefined && CAPTION_TAGS.has(k)) || (b[k] === undefined && NEW_EXIF.has(k))
          : (): boolean => false;
        // Where blocks disagreed on a field the user did not edit, each keeps its own value
        // (the readings below prove no field's reading changed).
        for (const k of changedTags(b, a)) {
          if (!allowed(k)) problems.push(`${rel}: ${k} changed ${JSON.stringify(b[k] ?? null)} -> ${JSON.stringify(a[k] ?? null)}`);
        }
        if (!written(f).includes(rel)) continue;
        // Every keyword that was there is still there, and the new one was added.
        const kw = (t: Tags): string[] => [...KEYWORD_TAGS].flatMap((k) => list(t[k])).flatMap((k) => k.split(/[|;]/)).map((k) => k.trim().toLocaleLowerCase());
        const missing = kw(b).filter((k) => !kw(a).includes(k));
        if (missing.length) problems.push(`${rel}: keywords lost: ${missing.join(', ')}`);
        if (!list(a['XMP-dc:Subject']).includes(NEW_KEYWORD)) problems.push(`${rel}: ${NEW_KEYWORD} not in XMP-dc:Subject`);
        // IPTC, XMP (and Windows' keywords) agree.
        if (a['IPTC:Keywords'] !== undefined && JSON.stringify(lower(list(a['IPTC:Keywords']))) !== JSON.stringify(lower(list(a['XMP-dc:Subject'])))) {
          problems.push(`${rel}: IPTC keywords ${JSON.stringify(a['IPTC:Keywords'])} differ from XMP ${JSON.stringify(a['XMP-dc:Subject'])}`);
        }
        if (a['IFD0:XPKeywords'] !== undefined && JSON.stringify(lower(String(a['IFD0:XPKeywords']).split(';'))) !== JSON.stringify(lower(list(a['XMP-dc:Subject'])))) {
          problems.push(`${rel}: XPKeywords ${JSON.stringify(a['IFD0:XPKeywords'])} differ from XMP`);
        }
        if (f.captionEdit) {
          for (const k of CAPTION_TAGS) {
            if (a[k] !== undefined && a[k] !== f.captionEdit) problems.push(`${rel}: ${k} is ${JSON.stringify(a[k])}, not the new caption`);
          }
        }
        // An IPTC digest that matched matches the new IPTC block; a stale one stays stale (MWG: readers keep taking IPTC).
        const digestMatched = b['Photoshop:IPTCDigest'] !== undefined && b['Photoshop:IPTCDigest'] === b['File:CurrentIPTCDigest'];
        if (digestMatched && a['Photoshop:IPTCDigest'] !== a['File:CurrentIPTCDigest']) problems.push(`${rel}: IPTC digest not updated`);
        if (b['Photoshop:IPTCDigest'] !== undefined && !digestMatched && a['Photoshop:IPTCDigest'] !== b['Photoshop:IPTCDigest']) problems.push(`${rel}: stale IPTC digest changed`);
      }

      // What exiftool reads is the same as before in every field but the edited ones.
      const rb = readingBefore.get(f.rel)!;
      const ra = readingAfter.get(f.rel)!;
      for (const field of Object.keys(rb) as (keyof Reading)[]) {
        if (field === 'keywordLevels' || field === 'leadingKeywords' || (field === 'caption' && f.captionEdit)) continue;
        if (JSON.stringify(rb[field]) !== JSON.stringify(ra[field])) problems.push(`${f.rel}: exiftool now reads ${field} ${JSON.stringify(ra[field])} (was ${JSON.stringify(rb[field])})`);
      }
      if (f.captionEdit && ra.caption !== f.captionEdit) problems.push(`${f.rel}: caption reads ${JSON.stringify(ra.caption)}`);
      const levels = [...rb.keywordLevels, NEW_KEYWORD.toLocaleLowerCase()].sort();
      if (JSON.stringify(ra.keywordLevels) !== JSON.stringify(levels)) problems.push(`${f.rel}: keyword levels ${JSON.stringify(ra.keywordLevels)}, expected ${JSON.stringify(levels)}`);
    }
    expect(problems).toEqual([]);

    // The catalogue shows what the files now hold: the foreign keywords it had missed included.
    const show = await cli(['show', abs('utf16-xmp.jpg'), '--json']);
    const shown = JSON.parse(show.stdout) as { keywords: string[]; caption: string | null; title: string | null };
    expect(shown.keywords).toEqual(['Fjord', 'Ålesund', 'Boote', 'Hafen', NEW_KEYWORD]);
    expect(shown.caption).toBe('Boote im Hafen von Ålesund');
    expect(shown.title).toBe('Über den Fjord');
    // The other byte order: the foreign UTF-16LE keywords kept, the caption edited, the title read.
    const le = JSON.parse((await cli(['show', abs('utf16le-xmp.jpg'), '--json'])).stdout) as { keywords: string[]; caption: string | null; title: string | null };
    expect(le).toMatchObject({ keywords: ['Leuchtturm', 'Küste', 'Möwe', NEW_KEYWORD], caption: 'Neue Möwen', title: 'Am Leuchtturm' });
    // Values read from a sidecar or a RAW stay in the catalogue (written nowhere they were not).
    const showOf = async (rel: string) => JSON.parse((await cli(['show', abs(rel), '--json'])).stdout) as { keywords: string[]; caption: string | null; rating: number };
    expect((await showOf('IMG_3.jpg')).keywords).toEqual(expect.arrayContaining(['Datei', 'Beiwerk', NEW_KEYWORD]));
    expect(await showOf('IMG_2.cr2')).toMatchObject({ caption: 'CAMERA CAPTION', rating: 4 });
    expect((await showOf('IMG_2.cr2')).keywords).toEqual(expect.arrayContaining(['in-raw', 'Sidecar', NEW_KEYWORD]));

    // The user changed keywords only: where the blocks disagreed on other fields they still do,
    // and the catalogue still says so.
    const lib2 = openLibrary(library);
    try {
      expect(getAssetDetail(lib2, findAssetByPath(lib2, abs('disagree-digest-stale.jpg'))!).blockDisagreement).toEqual({ fields: ['caption', 'creator'], took: 'iptc', digest: 'differs' });
      expect(getAssetDetail(lib2, findAssetByPath(lib2, abs('disagree-nodigest.jpg'))!).blockDisagreement).toEqual({ fields: ['caption', 'title'], took: 'xmp', digest: 'absent' });
    } finally {
      lib2.db.close();
    }

    // A second export finds every file in sync: nothing is written twice.
    const again = await cli(['export', ...all, '--write-files', '--json']);
    const second = JSON.parse(again.stdout) as { written: number; assets: { path: string; status: string; changedFields: string[] }[] };
    expect(second.assets.filter((a) => a.status !== 'in_sync')).toEqual([]);
  });
});
