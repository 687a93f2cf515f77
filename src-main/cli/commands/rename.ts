import type { RenamePreviewItem } from '../../../src-preload/contract';
import { previewRename, renameAssets } from '../../library/rename';
import { RENAME_TOKENS } from '../../library/rename-template';
import { searchIds } from '../../search/search';
import { CliError, UsageError, intValue } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';

// `tagsmith rename PATH...|--query Q --template T [--start N] [--dry-run] [--json]` -> [{from, to}]
// (issue 16's contract). Every new name is planned first; a collision or any other problem
// refuses the whole batch before anything moves. Sidecars and RAW+JPEG partners go along.

const arrow = (i: { from: string; to: string }): string => `${i.from} → ${i.to}`;

function describeProblems(items: RenamePreviewItem[]): string {
  const bad = items.filter((i) => i.problem);
  const lines = bad.slice(0, 20).map((i) => `  ${i.from}: ${i.problem}`);
  if (bad.length > 20) lines.push(`  … and ${bad.length - 20} more`);
  return `${bad.length} file${bad.length === 1 ? '' : 's'} cannot take the new name. Nothing was renamed.\n${lines.join('\n')}`;
}

export const command: Command = {
  name: 'rename',
  usage: 'rename PATH...|--query Q --template T [--start N] [--dry-run]',
  summary:
    'Rename files from a template, with their sidecars (IMG_1.xmp and IMG_1.CR2.xmp); a RAW and its JPEG keep one name. ' +
    'Collisions are refused before anything moves. Undo with `tagsmith undo`. Prints [{from, to}] with --json.',
  help: [
    '--template T         the new name without extension (the original extension is always kept); tokens:',
    ...RENAME_TOKENS.map((t) => `                       ${t.token.padEnd(24)} ${t.meaning}`),
    '                     any other text is kept as it is',
    '--query Q            the assets a search for Q finds, instead of PATHs (in search order)',
    '--start N            the first {seq} number (default 1)',
    '--dry-run            print every new name and move nothing',
  ],
  options: {
    query: { type: 'string' },
    template: { type: 'string' },
    start: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  async run(ctx, { values, positionals }, out) {
    const { query } = values;
    if (positionals.length && query !== undefined) throw new UsageError('rename takes PATHs or --query, not both.', 'rename');
    if (!positionals.length && query === undefined) throw new UsageError('rename needs at least one PATH or --query TEXT.', 'rename');
    if (typeof values.template !== 'string') throw new UsageError('rename needs --template, e.g. --template "{date:YYYYMMDD}-{seq:4}".', 'rename');
    const template = values.template;
    const start = intValue(values.start, 'start', 0, 1e12, 'rename') ?? 1;
    const assetIds = query !== undefined ? searchIds(ctx, { text: String(query) }) : assetIdsForPaths(ctx, positionals);
    if (!assetIds.length) throw new CliError(`No asset matches “${String(query)}”. Nothing was renamed.`);

    const preview = await previewRename(ctx, { assetIds, template, start });
    if (preview.templateError) throw new UsageError(preview.templateError, 'rename');
    if (preview.problems) throw new CliError(describeProblems(preview.items));
    const planned = preview.items.map((i) => ({ from: i.from, to: i.to }));
    if (values['dry-run']) {
      out.result(planned, () => preview.items.map((i) => [arrow(i), ...i.sidecars.map((s) => `  ${arrow(s)}`)].join('\n')).join('\n') +
        `\n(dry run: ${preview.changes} of ${preview.items.length} file${preview.items.length === 1 ? '' : 's'} would be renamed)`);
      return 0;
    }
    const result = await renameAssets(ctx, { assetIds, template, start });
    if (result.failed.length) {
      const lines = result.failed.map((f) => `  ${f.path}: ${f.reason}`).join('\n');
      throw new CliError(`${result.renamed.length} file(s) renamed; ${result.failed.length} could not be and were left as they were:\n${lines}`);
    }
    out.result(planned, () => preview.items.filter((i) => i.changed).map(arrow).join('\n') +
      `\nRenamed ${result.renamed.length} file${result.renamed.length === 1 ? '' : 's'}. \`tagsmith undo\` puts the names back.`);
    return 0;
  },
};
