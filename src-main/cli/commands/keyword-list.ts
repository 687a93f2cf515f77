import { readFile, rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exportKeywordList, importKeywordList } from '../../library/keyword-list';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';

// The keyword vocabulary in Lightroom's keyword-list text format (library/keyword-list.ts).
// Not the billed AI run: that is `tagsmith keyword`.

async function readList(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `${file} does not exist.` : code === 'EISDIR' ? `${file} is a folder, not a keyword list.` : `cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CliError(`${file} is not UTF-8 text. A keyword list exported by Lightroom (Metadata › Export Keywords) is; save the file as UTF-8 and import it again.`);
  }
}

export const command: Command = {
  name: 'keyword-list',
  usage: 'keyword-list export FILE | import FILE',
  summary:
    'The keyword vocabulary in Lightroom’s keyword-list format (one keyword a line, tab-indented hierarchy, {synonym}, [not exported]). ' +
    'import adds a list (counts: added, synonyms, existing); export writes every keyword of the library. No service call (the AI run is `tagsmith keyword`).',
  help: ['export FILE          write the library’s keyword list to FILE (UTF-8, LF)', 'import FILE          add the keywords and synonyms of FILE to the library'],
  options: {},
  async run(ctx, { positionals }, out) {
    const [action, file, ...extra] = positionals;
    if (action !== 'export' && action !== 'import') throw new UsageError('keyword-list needs export FILE or import FILE.', 'keyword-list');
    if (!file) throw new UsageError(`keyword-list ${action} needs a FILE.`, 'keyword-list');
    if (extra.length) throw new UsageError(`keyword-list ${action} takes one FILE (got ${positionals.length - 1}).`, 'keyword-list');
    const path = resolve(file);
    if (action === 'export') {
      const text = exportKeywordList(ctx);
      // Through a temp file and a rename: an interrupted export never leaves half a list.
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        await writeFile(tmp, text, 'utf8');
        await rename(tmp, path);
      } catch (e) {
        throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
      }
      const lines = text ? text.split('\n').length - 1 : 0;
      out.result({ file: path, lines }, () => (lines ? `Wrote ${lines} line${lines === 1 ? '' : 's'} to ${path}.` : `The library has no keywords yet; wrote an empty list to ${path}.`));
      return 0;
    }
    const r = await importKeywordList(ctx, await readList(path));
    for (const s of r.skipped) out.warn(`tagsmith: skipped ${s}`);
    out.result({ added: r.added, synonyms: r.synonyms, existing: r.existing }, () =>
      `Imported ${path}: ${r.added} keyword${r.added === 1 ? '' : 's'} added, ${r.synonyms} synonym${r.synonyms === 1 ? '' : 's'} added, ${r.existing} already in the library` +
      (r.skipped.length ? `; ${r.skipped.length} line${r.skipped.length === 1 ? '' : 's'} skipped (see above).` : '.'),
    );
    return 0;
  },
};
