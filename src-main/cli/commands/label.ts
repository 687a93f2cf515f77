import type { ColorLabel } from '../../../src-preload/contract';
import { setLabel } from '../../library/edits';
import { COLOR_LABELS, isColorLabel } from '../../library/labels';
import { UsageError } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';
import { cliAssetWithLabel } from '../asset-json';
import { runEdit } from '../edit-result';

const CHOICES = [...COLOR_LABELS, 'none'].join(', ');

export const command: Command = {
  name: 'label',
  usage: 'label PATH... --color red|yellow|green|blue|purple|none',
  summary: "Set the colour label (Lightroom's five; none clears it). `export --write-files` writes it into the files as XMP Label.",
  help: ['--color C            red, yellow, green, blue, purple, or none to clear'],
  options: { color: { type: 'string' } },
  async run(ctx, { values, positionals }, out) {
    if (!positionals.length) throw new UsageError('label needs a PATH.', 'label');
    const color = typeof values.color === 'string' ? values.color.trim().toLowerCase() : undefined;
    if (color === undefined) throw new UsageError(`label needs --color (${CHOICES}).`, 'label');
    if (color !== 'none' && !isColorLabel(color)) throw new UsageError(`--color must be one of ${CHOICES} (got “${String(values.color)}”).`, 'label');
    const label: ColorLabel | null = color === 'none' ? null : (color as ColorLabel);
    const ids = assetIdsForPaths(ctx, positionals);
    return runEdit(ctx, ids, out, 'Labelled', () => setLabel(ctx, ids, label), cliAssetWithLabel);
  },
};
