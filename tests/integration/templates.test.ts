import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';
import type { RightsFields } from '../../src-preload/contract';
import { findAssetByPath, getAssetDetail as getAsset } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { undo } from '../../src-main/library/edits';
import { getSyncState } from '../../src-main/metadata/file-state';
import { applyPreset, listPresets, savePreset } from '../../src-main/library/presets';

// Metadata templates (issue 16 item 4): a preset holding IPTC Core / Extension fields and
// keywords to add, applied to a selection as one undoable edit, a pending write that
// `tagsmith export --write-files` puts into the files: every field in its IPTC/XMP tag,
// checked with Debian's exiftool, and no other tag of the file changed.

let root: string;
let photos: string;
let library: string;
const p = (name: string): string => join(photos, name);

const tagsmith = (...args: string[]): CliRun => tagsmithSync(library, args);
const exiftool = (...args: string[]): string => execFileSync('exiftool', args, { encoding: 'utf8' });
const allTags = (file: string): Record<string, unknown> => (JSON.parse(exiftool('-j', '-G1', '-a', '-struct', file)) as Record<string, unknown>[])[0];
/** Tags that differ, without the file-system facts and exiftool's own marks. */
function changedTags(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .filter((k) => !/^(System|File|ExifTool):/.test(k) && k !== 'SourceFile')
    .sort();
}

const TEMPLATE: RightsFields = {
  creator: 'Ana Silva',
  copyright: '© 2026 Ana Silva',
  credit: 'Ana Silva / Tagsmith',
  headline: 'Lisbon at dusk',
  creatorJobTitle: 'Photographer',
  creatorAddress: 'Rua Augusta 1',
  creatorCity: 'Lisboa',
  creatorRegion: 'Lisboa',
  creatorPostalCode: '1100-048',
  creatorCountry: 'Portugal',
  creatorPhone: '+351 21 000 0000',
  creatorEmail: 'ana@example.com',
  creatorUrl: 'https://ana.example.com',
  usageTerms: 'Editorial use only; no resale.',
  rightsUrl: 'https://ana.example.com/licence',
  instructions: 'Credit the photographer.',
  source: 'Ana Silva Studio',
  createdSublocation: 'Alfama',
  createdCity: 'Lisboa',
  createdState: 'Lisboa',
  createdCountry: 'Portugal',
  createdCountryCode: 'PRT',
  shownSublocation: 'Tagus',
  shownCity: 'Almada',
  shownState: 'Setúbal',
  shownCountry: 'Portugal',
  shownCountryCode: 'PRT',
};

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-templates-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos);
  for (const [name, colour] of [['a.jpg', '#a63'], ['b.jpg', '#36a'], ['c.jpg', '#6a3']] as const) {
    await sharp({ create: { width: 48, height: 32, channels: 3, background: colour } }).jpeg().toFile(p(name));
  }
  // What the files already hold, which the template must not touch.
  exiftool('-q', '-overwrite_original', '-IFD0:Make=Canon', '-XMP-dc:Description=Tram 28', '-IPTC:Caption-Abstract=Tram 28', '-XMP-dc:Subject=tram', '-IPTC:Keywords=tram', '-XMP-photoshop:DateCreated=2026:05:01', p('a.jpg'));
  const r = tagsmith('index', photos, '--json');
  expect(r.code, r.stderr).toBe(0);
});

describe('metadata templates', () => {
  let ctx: LibraryCtx;
  const ids = (): number[] => ['a.jpg', 'b.jpg'].map((n) => findAssetByPath(ctx, p(n))!);

  it('applies every IPTC Core / Extension field and its keywords to a selection as one undoable step', async () => {
    ctx = openLibrary(library);
    const saved = savePreset(ctx, 'Lisbon 2026', TEMPLATE, ['Lisbon', 'Places|Portugal|Lisbon']);
    expect(saved.fields).toEqual(TEMPLATE);
    expect(listPresets(ctx).map((t) => [t.name, t.keywords])).toEqual([['Lisbon 2026', ['Lisbon', 'Places|Portugal|Lisbon']]]);

    await applyPreset(ctx, saved.id, ids());
    for (const id of ids()) {
      const a = getAsset(ctx, id);
      expect(a.rights).toMatchObject(TEMPLATE);
      expect(a.keywords).toEqual(expect.arrayContaining(['Lisbon', 'Places|Portugal|Lisbon']));
      expect(getSyncState(ctx, id).status).toBe('unsaved');
    }
    expect(getAsset(ctx, ids()[0]).keywords).toEqual(['tram', 'Lisbon', 'Places|Portugal|Lisbon']);

    // One undo takes all of it back off both photos.
    expect(await undo(ctx)).toBe('Undo: apply the preset “Lisbon 2026” to 2 items');
    for (const id of ids()) {
      expect(getAsset(ctx, id).rights.usageTerms).toBeNull();
      expect(getAsset(ctx, id).rights.creator).toBeNull();
      expect(getAsset(ctx, id).keywords).not.toContain('Lisbon');
    }
    await applyPreset(ctx, saved.id, ids());
    ctx.db.close();
  });

  it('export --write-files writes every field into its IPTC / XMP tag and changes nothing else', () => {
    const before = allTags(p('a.jpg'));
    const untouched = allTags(p('c.jpg'));
    const r = tagsmith('export', p('a.jpg'), p('b.jpg'), p('c.jpg'), '--write-files', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ written: 2, failed: 0 });
    expect(changedTags(untouched, allTags(p('c.jpg')))).toEqual([]);

    const [t] = JSON.parse(exiftool('-j', '-G1', p('a.jpg'))) as Record<string, unknown>[];
    expect(t).toMatchObject({
      'XMP-dc:Creator': 'Ana Silva',
      'IPTC:By-line': 'Ana Silva',
      'XMP-dc:Rights': '© 2026 Ana Silva',
      'IPTC:CopyrightNotice': '© 2026 Ana Silva',
      'XMP-photoshop:Credit': 'Ana Silva / Tagsmith',
      'XMP-photoshop:Headline': 'Lisbon at dusk',
      'XMP-photoshop:AuthorsPosition': 'Photographer',
      'IPTC:By-lineTitle': 'Photographer',
      'XMP-iptcCore:CreatorAddress': 'Rua Augusta 1',
      'XMP-iptcCore:CreatorCity': 'Lisboa',
      'XMP-iptcCore:CreatorRegion': 'Lisboa',
      'XMP-iptcCore:CreatorPostalCode': '1100-048',
      'XMP-iptcCore:CreatorCountry': 'Portugal',
      'XMP-iptcCore:CreatorWorkTelephone': '+351 21 000 0000',
      'XMP-iptcCore:CreatorWorkEmail': 'ana@example.com',
      'XMP-iptcCore:CreatorWorkURL': 'https://ana.example.com',
      'XMP-xmpRights:UsageTerms': 'Editorial use only; no resale.',
      'XMP-xmpRights:WebStatement': 'https://ana.example.com/licence',
      'XMP-photoshop:Instructions': 'Credit the photographer.',
      'IPTC:SpecialInstructions': 'Credit the photographer.',
      'XMP-photoshop:Source': 'Ana Silva Studio',
      'IPTC:Source': 'Ana Silva Studio',
      'XMP-iptcExt:LocationCreatedSublocation': 'Alfama',
      'XMP-iptcExt:LocationCreatedCity': 'Lisboa',
      'XMP-iptcExt:LocationCreatedProvinceState': 'Lisboa',
      'XMP-iptcExt:LocationCreatedCountryName': 'Portugal',
      'XMP-iptcExt:LocationCreatedCountryCode': 'PRT',
      'XMP-iptcExt:LocationShownSublocation': 'Tagus',
      'XMP-iptcExt:LocationShownCity': 'Almada',
      'XMP-iptcExt:LocationShownProvinceState': 'Setúbal',
      'XMP-iptcExt:LocationShownCountryName': 'Portugal',
      'XMP-iptcExt:LocationShownCountryCode': 'PRT',
      'XMP-dc:Subject': ['tram', 'Lisbon', 'Places', 'Portugal'],
      'XMP-lr:HierarchicalSubject': 'Places|Portugal|Lisbon',
      'IPTC:Keywords': ['tram', 'Lisbon', 'Places', 'Portugal'],
      // What the file held before stays.
      'IFD0:Make': 'Canon',
      'XMP-dc:Description': 'Tram 28',
      'IPTC:Caption-Abstract': 'Tram 28',
      'XMP-photoshop:DateCreated': '2026:05:01',
    });
    // Exactly the template's tags (and the keyword tags, the IIM character set) changed.
    expect(changedTags(before, allTags(p('a.jpg')))).toEqual(
      [
        'IPTC:By-line', 'IPTC:By-lineTitle', 'IPTC:CodedCharacterSet', 'IPTC:CopyrightNotice', 'IPTC:Credit', 'IPTC:Headline', 'IPTC:Keywords', 'IPTC:SpecialInstructions', 'IPTC:Source',
        // exiftool's own record-version marks, as on any IIM write.
        'IPTC:EnvelopeRecordVersion',
        'XMP-dc:Creator', 'XMP-dc:Rights', 'XMP-dc:Subject', 'XMP-iptcCore:CreatorContactInfo', 'XMP-iptcExt:LocationCreated', 'XMP-iptcExt:LocationShown',
        'XMP-lr:HierarchicalSubject', 'XMP-photoshop:AuthorsPosition', 'XMP-photoshop:Credit', 'XMP-photoshop:Headline', 'XMP-photoshop:Instructions', 'XMP-photoshop:Source',
        'XMP-xmpRights:UsageTerms', 'XMP-xmpRights:WebStatement',
      ].sort(),
    );

    // In step now: a second write changes nothing.
    const again = tagsmith('export', p('a.jpg'), p('b.jpg'), '--write-files', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ written: 0, inSync: 2, failed: 0 });
  });

  it('an undo after writing is a pending write that clears the template fields from the file again', async () => {
    const c = openLibrary(library);
    expect(await undo(c)).toBe('Undo: apply the preset “Lisbon 2026” to 2 items');
    const id = findAssetByPath(c, p('b.jpg'))!;
    expect(getSyncState(c, id).status).toBe('unsaved');
    c.db.close();
    const r = tagsmith('export', p('b.jpg'), '--write-files', '--json');
    expect(r.code, r.stderr).toBe(0);
    const [t] = JSON.parse(exiftool('-j', '-G1', p('b.jpg'))) as Record<string, unknown>[];
    expect(Object.keys(t).filter((k) => /^(XMP-iptcCore|XMP-iptcExt|XMP-xmpRights|XMP-dc:Creator|IPTC:By-line|IPTC:Source)/.test(k))).toEqual([]);
  });
});
