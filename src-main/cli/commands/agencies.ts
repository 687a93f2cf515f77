import { AGENCY_PROFILES, agencySummary, describeRules } from '../../metadata/agencies';
import { UsageError } from '../args';
import type { Command } from '../command';

// `tagsmith agencies [--json]`: the agency profiles, `[{id, name, protocols, csv}]` (issue 19's
// contract). The text form adds each profile's rules and what its documentation did not give.

export const command: Command = {
  name: 'agencies',
  usage: 'agencies',
  summary: 'List the stock agency profiles: ids, upload protocols, whether a CSV is documented, and their rules.',
  help: [],
  options: {},
  run() {
    throw new Error('agencies runs without opening the library');
  },
  // Profiles are data shipped with Tagsmith: no catalogue needed.
  async runWithoutLibrary(_dataDir, { positionals }, out) {
    if (positionals.length) throw new UsageError('agencies takes no arguments.', 'agencies');
    out.result(AGENCY_PROFILES.map(agencySummary), () =>
      AGENCY_PROFILES.map((p) =>
        [`${p.id}  ${p.name}  upload: ${p.upload.protocols.join(', ') || 'none documented'}  csv: ${p.csv ? 'yes' : 'no'}`,
          ...describeRules(p).map((r) => `  ${r}`),
          ...p.notFound.map((r) => `  Not found in its documentation: ${r}`)].join('\n'),
      ).join('\n\n'),
    );
    return 0;
  },
};
