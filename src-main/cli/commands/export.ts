import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AGENCY_IDS, AGENCY_PROFILES, agencyProfile, isAgencyId } from '../../metadata/agencies';
import { CliError, UsageError } from '../args';
import type { Command } from '../command';
import { pathOf, targetOf } from '../targets';

// `tagsmith export`: the library's keywords (in their order), captions and titles into the
// files themselves (metadata/writer.ts: minimal, verified, temp-and-rename), or a stock
// agency's CSV. A file that cannot be written is reported and the batch goes on (exit 0).
// The CSV runs the agency check first: a failing photo is reported and left out unless --force.

const CSV_AGENCIES = AGENCY_PROFILES.filter((p) => p.csv).map((p) => p.id);

export const command: Command = {
  name: 'export',
  usage: `export PATH...|--query Q (--write-files | --csv FILE --agency ${CSV_AGENCIES.join('|')} [--force])`,
  summary: 'Write keywords, captions and titles into the files (IPTC/XMP, sidecars for RAW), or save a stock agency CSV.',
  help: [
    '--write-files        write the library’s values into the files (only fields that differ)',
    '--csv FILE           save a CSV for a stock agency instead',
    `--agency ID          ${CSV_AGENCIES.join(' or ')} (with --csv; the agencies that document a CSV)`,
    '--force              include photos that fail the agency check (with --csv)',
    '--query Q            the assets a search for Q finds, instead of PATHs',
  ],
  options: { 'write-files': { type: 'boolean' }, csv: { type: 'string' }, agency: { type: 'string' }, query: { type: 'string' }, force: { type: 'boolean' } },
  async run(ctx, { values, positionals }, out) {
    const csv = values.csv as string | undefined;
    const agency = values.agency as string | undefined;
    if ((csv !== undefined) === (values['write-files'] === true)) throw new UsageError('export needs either --write-files or --csv FILE.', 'export');
    if (csv !== undefined && agency !== undefined && isAgencyId(agency) && !agencyProfile(agency).csv) {
      throw new UsageError(`${agencyProfile(agency).name} documents no metadata CSV; --csv works with --agency ${CSV_AGENCIES.join(', ')}.`, 'export');
    }
    if (csv !== undefined && (agency === undefined || !isAgencyId(agency))) {
      throw new UsageError(`--csv needs --agency ${CSV_AGENCIES.join(' or ')} (agencies: ${AGENCY_IDS.join(', ')}).`, 'export');
    }
    if (csv === undefined && agency !== undefined) throw new UsageError('--agency goes with --csv.', 'export');
    if (csv === undefined && values.force !== undefined) throw new UsageError('--force goes with --csv.', 'export');
    const { ids } = await targetOf(ctx, positionals, values.query, 'export');

    if (csv !== undefined) {
      const { buildAgencyCsv } = await import('../../metadata/csv-export');
      const a = agency as (typeof CSV_AGENCIES)[number];
      const built = await buildAgencyCsv(ctx, ids, a, { force: values.force === true });
      // `warnings` stays for scripts written before the check (the same list as `problems`).
      const assets = built.assets.map((x) => ({ path: x.path, ok: x.ok, included: x.included, problems: x.problems, warnings: x.problems }));
      const heldBack = assets.filter((x) => !x.included).map((x) => x.path);
      const file = resolve(csv);
      try {
        await writeFile(file, built.csv, 'utf8');
      } catch (err) {
        throw new CliError(`Could not save “${file}”: ${(err as Error).message}`);
      }
      out.result({ csv: file, agency: a, rows: built.rows, heldBack, assets }, () =>
        [`Saved ${built.rows} row${built.rows === 1 ? '' : 's'} for ${agencyProfile(a).name} to ${file}.`,
          ...(heldBack.length ? [`Held back ${heldBack.length} that fail${heldBack.length === 1 ? 's' : ''} ${agencyProfile(a).name}'s rules (fix them, or add --force):`] : []),
          ...assets.filter((x) => !x.ok).map((x) => `${x.included ? 'included anyway' : 'held back'}  ${x.path}\n  ${x.problems.join('\n  ')}`)].join('\n'),
      );
      return 0;
    }

    const { writeAssetMetadata } = await import('../../metadata/writer');
    const { FileBusy, useStudioLeases } = await import('../../studio/file-lease');
    useStudioLeases();
    // A studio member waits while another member writes the same file (the server holds the
    // request up to 25 s at a time), saying so once per writer.
    const writeWhenFree = async (c: typeof ctx, id: number, o: typeof out) => {
      let told = '';
      for (;;) {
        try {
          return await writeAssetMetadata(c, id, { leaseWaitS: told ? 25 : 0 });
        } catch (err) {
          if (!(err instanceof FileBusy)) throw err;
          if (err.message !== told) o.warn(`${pathOf(c, id)}: ${err.message}`);
          told = err.message;
        }
      }
    };
    const { closeMetadataReader } = await import('../../metadata/reader');
    try {
      const assets: { path: string; status: string; changedFields: string[]; warnings: string[]; error?: string }[] = [];
      for (const [i, id] of ids.entries()) {
        out.progress(`Writing ${i + 1}/${ids.length}`);
        const r = await writeWhenFree(ctx, id, out);
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
