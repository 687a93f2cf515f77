import { UsageError } from '../args';
import { cliAssetWithErrors } from '../asset-json';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';

export const command: Command = {
  name: 'show',
  usage: 'show PATH',
  summary: 'Show one asset: metadata, keywords, caption, thumbnail and recorded errors.',
  help: [],
  options: {},
  async run(ctx, { positionals }, out) {
    if (positionals.length !== 1) throw new UsageError('show takes exactly one PATH.', 'show');
    const [id] = assetIdsForPaths(ctx, positionals);
    const a = cliAssetWithErrors(ctx, id);
    out.result(a, () => {
      const lines: [string, unknown][] = [
        ['Path', a.path],
        ['Kind', a.kind],
        ['Size', a.width && a.height ? `${a.width} × ${a.height}` : null],
        ['Duration', a.durationS !== null ? `${a.durationS.toFixed(1)} s` : null],
        ['Taken', a.takenAt],
        ['Camera', [a.cameraMake, a.cameraModel].filter(Boolean).join(' ') || null],
        ['GPS', a.gps ? `${a.gps.lat}, ${a.gps.lon}` : null],
        ['Rating', a.rating ? '★'.repeat(a.rating) : null],
        ['Label', a.label ?? null],
        ['Keywords', a.keywords.length ? a.keywords.join(', ') : null],
        ['In', a.collections?.length ? a.collections.join(', ') : null],
        ['Title', a.title],
        ['Caption', a.caption],
        ['Thumbnail', a.thumbnail],
        ...a.errors.map((e): [string, unknown] => ['Error', `${e.stage}: ${e.reason}`]),
      ];
      return lines.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k.padEnd(10)} ${String(v)}`).join('\n');
    });
    return 0;
  },
};
