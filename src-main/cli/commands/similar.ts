import { fillMissingFingerprints, findGroups } from '../../library/similarity';
import { resolveTarget } from '../../workflows';
import { UsageError } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths, pathOf } from '../targets';

// `tagsmith similar`: the groups of one scene (bursts and near-duplicates) among the named
// files, a search's results, or the whole library, each with its suggested best frame.
// Pictures still without a fingerprint get one first (from their cached thumbnail).

export const command: Command = {
  name: 'similar',
  usage: 'similar [PATH...|--query Q]',
  summary: 'Groups of similar pictures (bursts and near-duplicates, two or more each) with the suggested best frame of each; the whole library without PATHs or --query.',
  help: ['--query Q            the assets a search for Q finds, instead of PATHs'],
  options: { query: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    if (positionals.length && values.query !== undefined) throw new UsageError('similar takes PATHs or --query, not both.', 'similar');
    const ids = positionals.length
      ? assetIdsForPaths(ctx, positionals)
      : values.query !== undefined ? await resolveTarget(ctx, { query: { text: String(values.query) } }) : undefined;
    await fillMissingFingerprints(ctx, { assetIds: ids });
    const groups = ids && ids.length === 0 ? [] : findGroups(ctx.db, ids);
    const result = { groups: groups.map((g) => ({ members: g.members.map((id) => pathOf(ctx, id)), best: pathOf(ctx, g.best) })) };
    out.result(result, () =>
      result.groups.length === 0
        ? 'No similar pictures.'
        : result.groups.map((g, i) => [`Group ${i + 1} (${g.members.length} pictures, ${groups[i].kind})`, ...g.members.map((m) => `  ${m === g.best ? '*' : ' '} ${m}`)].join('\n')).join('\n') +
          '\n(* the suggested best frame)',
    );
    return 0;
  },
};
