import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Agency } from '../../workflows';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { pathOf, targetOf } from '../targets';

// `tagsmith export`: the library's keywords (in their order), captions and titles into the
// files themselves (metadata/writer.ts: minimal, verified, temp-and-rename), or a stock
// agency's CSV. A file that cannot be written is reported and the batch goes on (exit 0).

const AGENCIES: Agency[] = ['adobe', 'shutterstock'];

export const command: Command = {
  name: 'export',
  usage: 'export PATH...|--query Q (--write-files | --csv FILE --agency adobe|shutterstock)',
  summary: 'Write keywords, captions and titles into the files (IPTC/XMP, sidecars for RAW), or save a stock agency CSV.',
  help: [
    '--write-files        write the library’s values into the files (only fields that differ)',
    '--csv FILE           save a CSV for a stock agency instead',
    '--agency A           adobe or shutterstock (with --csv)',
    '--query Q            the assets a search for Q finds, instead of PATHs',
  ],
  options: { 'write-files': { type: 'boolean' }, csv: { type: 'string' }, agency: { type: 'string' }, query: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    const csv = values.csv as string | undefined;
    const agency = values.agency as string | undefined;
    if ((csv !== undefined) === (values['write-files'] === true)) throw new UsageError('export needs either --write-files or --csv FILE.', 'export');
    if (csv !== undefined && (agency === undefined || !AGENCIES.includes(agency as Agency))) {
      throw new UsageError(`--csv needs --agency ${AGENCIES.join(' or ')}.`, 'export');
    }
    if (csv === undefined && agency !== undefined) throw new UsageError('--agency goes with --csv.', 'export');
    const { ids } = targetOf(ctx, positionals, values.query, 'export');

    if (csv !== undefined) {
      const { buildAgencyCsv } = await import('../../metadata/csv-export');
      const a = agency as Agency;
      const built = buildAgencyCsv(ctx, ids, a);
      const assets = built.assets.map((x) => ({ path: pathOf(ctx, x.assetId), warnings: x.warnings }));
      const file = resolve(csv);
      try {
        await writeFile(file, built.csv, 'utf8');
      } catch (err) {
        throw new CliError(`Could not save “${file}”: ${(err as Error).message}`);
      }
      out.result({ csv: file, agency: a, rows: built.rows, assets }, () =>
        [`Saved ${built.rows} row${built.rows === 1 ? '' : 's'} for ${a === 'adobe' ? 'Adobe Stock' : 'Shutterstock'} to ${file}.`,
          ...assets.filter((x) => x.warnings.length).map((x) => `${x.path}\n  ${x.warnings.join('\n  ')}`)].join('\n'),
      );
      return 0;
    }

    const { writeAssetMetadata } = await import('../../metadata/writer');
    const { closeMetadataReader } = await import('../../library/metadata');
    try {
      const assets: { path: string; status: string; changedFields: string[]; warnings: string[]; error?: string }[] = [];
      for (const [i, id] of ids.entries()) {
        out.progress(`Writing ${i + 1}/${ids.length}`);
        const r = await writeAssetMetadata(ctx, id);
        const entry: { path: string; status: string; changedFields: string[]; warnings: string[]; error?: string } = {
          path: pathOf(ctx, id), status: r.status, changedFields: r.changedFields, warnings: r.warnings,
        };
        if (r.error) entry.error = r.error;
        assets.push(entry);
      }
      out.endProgress();
      const count = (s: string): number => assets.filter((x) => x.status === s).length;
      const summary = { written: count('written'), inSync: count('in_sync'), failed: count('failed') };
      out.result({ ...summary, assets }, () =>
        [`Wrote ${summary.written} file${summary.written === 1 ? '' : 's'}; ${summary.inSync} already in sync; ${summary.failed} failed.`,
          ...assets.filter((x) => x.error || x.warnings.length).map((x) => `${x.path}  ${x.error ?? x.warnings.join('; ')}`)].join('\n'),
      );
      return 0;
    } finally {
      await closeMetadataReader();
    }
  },
};
