import { AGENCY_IDS, isAgencyId } from '../../metadata/agencies';
import { UsageError } from '../args';
import type { Command } from '../command';
import { targetOf } from '../targets';

// `tagsmith check --agency ID PATH...|--query Q [--json]` -> `[{path, ok, problems}]`
// (issue 19's contract): each photo against the agency's published rules. Reads only; exit 0
// whether or not photos pass (the verdicts are the result).

export const command: Command = {
  name: 'check',
  usage: 'check --agency ID PATH...|--query Q',
  summary: 'Check photos against a stock agency’s rules before sending: a verdict per photo and what to fix.',
  help: [
    `--agency ID          ${AGENCY_IDS.join(', ')}`,
    '--query Q            the assets a search for Q finds, instead of PATHs',
  ],
  options: { agency: { type: 'string' }, query: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    const agency = values.agency as string | undefined;
    if (agency === undefined || !isAgencyId(agency)) throw new UsageError(`check needs --agency ${AGENCY_IDS.join('|')}.`, 'check');
    const { ids } = await targetOf(ctx, positionals, values.query, 'check');
    const { checkAssets } = await import('../../metadata/agency-check');
    const verdicts = (await checkAssets(ctx, ids, agency)).map((v) => ({ path: v.path, ok: v.ok, problems: v.problems }));
    out.result(verdicts, () => {
      const failing = verdicts.filter((v) => !v.ok).length;
      return [
        ...verdicts.map((v) => (v.ok ? `ok    ${v.path}` : `FAIL  ${v.path}\n${v.problems.map((p) => `      ${p}`).join('\n')}`)),
        `${verdicts.length - failing} of ${verdicts.length} pass; ${failing} to fix.`,
      ].join('\n');
    });
    return 0;
  },
};
