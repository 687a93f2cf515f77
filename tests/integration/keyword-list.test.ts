import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';

// Keyword lists in Lightroom's text format through the CLI (a real child process): a list with
// a hierarchy, synonyms and keywords not exported round-trips byte for byte; a list saved with
// a BOM and CRLF is read the same; counts say what was added; synonyms show in the keyword
// list; with "export synonyms" on, `export --write-files` writes them into the file (flat
// keywords, not the hierarchy), checked with Debian's exiftool; bad input is named.

let root: string;
let library: string;

const tagsmith = (...args: string[]): CliRun => tagsmithSync(library, args);

const exiftool = (...args: string[]): string => execFileSync('exiftool', args, { encoding: 'utf8' });

// As Lightroom Classic writes it (Metadata › Export Keywords): tabs, {synonyms} one tab deeper
// than their keyword, [name] for a keyword not included on export, LF after every line.
const LIST = [
  'Animals',
  '\tMammals',
  '\t\tCat',
  '\t\t\t{Kitty}',
  '\t\t\t{Felis catus}',
  '\t\tDog',
  '\t\t\t{Hound}',
  '\tBirds',
  '[Workflow]',
  '\t[To edit]',
  'Places',
  '\tFrance',
  '\t\tParis',
  '\t\t\t{Paname}',
  '\t\t\tMontmartre',
  'Straße',
  '',
].join('\n');

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-kwlist-')));
  library = join(root, 'lib');
});

describe('tagsmith keyword-list', () => {
  it('imports a list with a hierarchy and synonyms, counts it, and exports it byte for byte', () => {
    writeFileSync(join(root, 'in.txt'), LIST, 'utf8');
    const r = tagsmith('keyword-list', 'import', join(root, 'in.txt'), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ added: 12, synonyms: 4, existing: 0 });

    const out = join(root, 'out.txt');
    const e = tagsmith('keyword-list', 'export', out);
    expect(e.code, e.stderr).toBe(0);
    expect(readFileSync(out)).toEqual(Buffer.from(LIST, 'utf8'));

    // Importing it again adds nothing.
    const again = tagsmith('keyword-list', 'import', out, '--json');
    expect(again.json()).toEqual({ added: 0, synonyms: 0, existing: 12 });
    tagsmith('keyword-list', 'export', out);
    expect(readFileSync(out)).toEqual(Buffer.from(LIST, 'utf8'));
  });

  it('reads a list saved with a BOM and CRLF line ends and writes it back exactly (UTF-8, LF, no BOM)', () => {
    writeFileSync(join(root, 'crlf.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LIST.replace(/\n/g, '\r\n'), 'utf8')]));
    const r = tagsmith('keyword-list', 'import', join(root, 'crlf.txt'), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ added: 12, synonyms: 4, existing: 0 });
    const out = join(root, 'out.txt');
    expect(tagsmith('keyword-list', 'export', out).code).toBe(0);
    expect(readFileSync(out)).toEqual(Buffer.from(LIST, 'utf8'));
  });

  it('counts keywords already on photos as existing, exports them beside the list, and merges new synonyms', async () => {
    const photos = join(root, 'photos');
    mkdirSync(photos);
    const file = join(photos, 'cat.jpg');
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#864' } }).jpeg().toFile(file);
    exiftool('-q', '-overwrite_original', '-XMP-lr:HierarchicalSubject=Animals|Mammals|Cat', '-XMP-dc:Subject=Animals', '-XMP-dc:Subject=Mammals', '-XMP-dc:Subject=Cat', '-XMP-dc:Subject=sunny', file);
    expect(tagsmith('index', photos, '--json').code).toBe(0);

    writeFileSync(join(root, 'in.txt'), 'Animals\n\tMammals\n\t\tCat\n\t\t\t{Kitty}\n', 'utf8');
    expect(tagsmith('keyword-list', 'import', join(root, 'in.txt'), '--json').json()).toEqual({ added: 2, synonyms: 1, existing: 1 });
    writeFileSync(join(root, 'more.txt'), 'Animals\n\tMammals\n\t\tCat\n\t\t\t{Kitty}\n\t\t\t{Puss}\n', 'utf8');
    expect(tagsmith('keyword-list', 'import', join(root, 'more.txt'), '--json').json()).toEqual({ added: 0, synonyms: 1, existing: 3 });

    const out = join(root, 'out.txt');
    expect(tagsmith('keyword-list', 'export', out).code).toBe(0);
    // The list's order first; 'sunny', only on a photo, follows.
    expect(readFileSync(out, 'utf8')).toBe('Animals\n\tMammals\n\t\tCat\n\t\t\t{Kitty}\n\t\t\t{Puss}\nsunny\n');
  });

  it('writes synonyms into files with their keyword only when the user exports synonyms', async () => {
    const photos = join(root, 'photos');
    mkdirSync(photos);
    const file = join(photos, 'cat.jpg');
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#468' } }).jpeg().toFile(file);
    expect(tagsmith('index', photos, '--json').code).toBe(0);
    writeFileSync(join(root, 'in.txt'), LIST, 'utf8');
    expect(tagsmith('keyword-list', 'import', join(root, 'in.txt')).code).toBe(0);
    expect(tagsmith('tag', file, '--add', 'Animals|Mammals|Cat').code).toBe(0);

    const read = (): { subject: unknown; hier: unknown; iptc: unknown } => {
      const [t] = JSON.parse(exiftool('-j', '-XMP-dc:Subject', '-XMP-lr:HierarchicalSubject', '-IPTC:Keywords', file)) as Record<string, unknown>[];
      return { subject: t.Subject, hier: t.HierarchicalSubject, iptc: t.Keywords };
    };
    let w = tagsmith('export', file, '--write-files', '--json');
    expect(w.code, w.stderr).toBe(0);
    expect(read()).toEqual({ subject: ['Animals', 'Mammals', 'Cat'], hier: 'Animals|Mammals|Cat', iptc: ['Animals', 'Mammals', 'Cat'] });

    // "Export synonyms" on (the app's keyword settings; set here through the same Api).
    const { openLibrary } = await import('../../src-main/library/context');
    const { setKeywordSettings } = await import('../../src-main/workflows/hygiene');
    const ctx = openLibrary(library);
    setKeywordSettings(ctx, { exportSynonyms: true });
    ctx.db.close();

    const before = JSON.parse(exiftool('-j', '-G1', '-a', file))[0] as Record<string, unknown>;
    w = tagsmith('export', file, '--write-files', '--json');
    expect(w.code, w.stderr).toBe(0);
    // Synonyms as flat keywords, never in the hierarchy (as Lightroom writes them).
    expect(read()).toEqual({ subject: ['Animals', 'Mammals', 'Cat', 'Kitty', 'Felis catus'], hier: 'Animals|Mammals|Cat', iptc: ['Animals', 'Mammals', 'Cat', 'Kitty', 'Felis catus'] });
    const after = JSON.parse(exiftool('-j', '-G1', '-a', file))[0] as Record<string, unknown>;
    const changed = Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    expect(changed.filter((k) => !/^(System|File|ExifTool|Photoshop):/.test(k) && k !== 'SourceFile').sort()).toEqual(['IPTC:Keywords', 'XMP-dc:Subject']);

    // The synonyms do not become keywords of the photo, and the file counts as in step.
    const shown = tagsmith('show', file, '--json').json<{ keywords: string[] }>();
    expect(shown.keywords).toEqual(['Animals|Mammals|Cat']);
    w = tagsmith('export', file, '--write-files', '--json');
    expect(w.code, w.stderr).toBe(0);
    expect(w.json()).toMatchObject({ written: 0, inSync: 1, failed: 0 });
  });

  it('names bad input: a missing file, a file that is not UTF-8, lines it cannot read; says what keyword-list is in --help', () => {
    const missing = tagsmith('keyword-list', 'import', join(root, 'nope.txt'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.txt does not exist/);

    writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a]));
    const latin = tagsmith('keyword-list', 'import', join(root, 'latin1.txt'));
    expect(latin.code).toBe(1);
    expect(latin.stderr).toMatch(/is not UTF-8 text/);

    writeFileSync(join(root, 'odd.txt'), '\t{orphan}\nGood\n\t{Fine}\nA|B\n', 'utf8');
    const odd = tagsmith('keyword-list', 'import', join(root, 'odd.txt'), '--json');
    expect(odd.code, odd.stderr).toBe(0);
    expect(odd.json()).toEqual({ added: 1, synonyms: 1, existing: 0 });
    expect(odd.stderr).toMatch(/line 1: the synonym \{orphan\} has no keyword above it/);
    expect(odd.stderr).toMatch(/line 4: “A\|B” has a “\|”/);

    const usage = tagsmith('keyword-list', 'frobnicate');
    expect(usage.code).toBe(2);
    const help = tagsmith('--help');
    expect(help.stdout).toMatch(/keyword-list .*manage the keyword vocabulary/);
    expect(help.stdout).toMatch(/keyword PATH.*billed AI keyword run/);
  });
});
