import { getAssetAnalysis } from '../../analysis';
import type { Command } from '../command';
import { pathOf } from '../targets';
import { measure } from '../runs';

// `tagsmith faces`: estimated ages and face boxes (fractions 0..1 of the displayed, EXIF-rotated
// picture). The service estimates ages only; it never identifies anyone.

export const command: Command = {
  name: 'faces',
  usage: 'faces PATH...|--query Q [--force] [--yes]',
  summary: 'Find faces and estimate ages with the service through the job queue; boxes are fractions of the displayed picture.',
  help: [
    '--query Q            the assets a search for Q finds, instead of PATHs',
    '--force              look again at files already done (cached: no charge)',
    '--yes, -y            do not ask to confirm the number of billed calls (asked on a terminal only)',
  ],
  options: { query: { type: 'string' }, force: { type: 'boolean' } },
  async run(ctx, args, out) {
    const m = await measure(ctx, args, out, 'faces', 'faces', 'Looking for faces');
    const assets = m.ids.map((id) => {
      const a = getAssetAnalysis(ctx, id);
      const entry: {
        path: string;
        faces: { age: number; score: number; bbox: [number, number, number, number]; class: string }[];
        releaseNeeded: boolean | null;
        error?: string;
      } = {
        path: pathOf(ctx, id),
        faces: (a.faces ?? []).map((f) => ({ age: f.age, score: f.score, bbox: f.bbox, class: f.class })),
        releaseNeeded: a.releaseNeeded,
      };
      const err = m.errors.get(id);
      if (err) entry.error = err;
      return entry;
    });
    const result = { run: m.started.runId, billable: m.billable, cached: m.cached, assets };
    out.result(result, () =>
      [
        `Run ${result.run}: ${result.billable} billed call${result.billable === 1 ? '' : 's'}, ${result.cached} from the cache.`,
        ...assets.map((a) =>
          a.error
            ? `${a.path}  error: ${a.error}`
            : `${a.path}  ${a.faces.length ? a.faces.map((f) => `${f.class.replace(/^Age - /, '')} (~${Math.round(f.age)})`).join(', ') + ' — model release likely needed' : 'no faces'}`,
        ),
      ].join('\n'),
    );
    return m.held ? 1 : 0;
  },
};
