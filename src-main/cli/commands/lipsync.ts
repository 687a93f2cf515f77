import { resolve } from 'node:path';
import { openCreative, waitAndReport } from '../creative';
import { findAssetByPath } from '../../library/assets';
import { UsageError } from '../args';
import type { Command } from '../command';

export const command: Command = {
  name: 'lipsync',
  usage: 'lipsync --audio A --video V|--image I [--resolution 360p|480p|720p] [--no-wait] [--wait-s N]',
  summary: 'Lip-sync speech onto a clip or a portrait; the video lands in the library.',
  help: ['--audio A       speech (MP3, WAV, M4A, OGG, FLAC, ...): clear voice, no music', '--video V       a clip with a clearly visible face', '--image I       a portrait: one face, front, mouth visible, even light', '--resolution R  360p, 480p or 720p', '--no-wait       queue it and return', '--wait-s N      wait at most N seconds, then say how to follow the task (it keeps running)'],
  options: { audio: { type: 'string' }, video: { type: 'string' }, image: { type: 'string' }, resolution: { type: 'string' }, 'no-wait': { type: 'boolean' }, 'wait-s': { type: 'string' } },
  async run(ctx, args, out) {
    const v = args.values;
    if (typeof v.audio !== 'string') throw new UsageError('lipsync needs --audio A.', 'lipsync');
    if ((v.video === undefined) === (v.image === undefined)) throw new UsageError('lipsync needs --video V or --image I (one of them).', 'lipsync');
    const res = v.resolution as string | undefined;
    if (res !== undefined && !['360p', '480p', '720p'].includes(res)) throw new UsageError('--resolution is 360p, 480p or 720p.', 'lipsync');
    const ref = (p: string) => {
      const abs = resolve(p);
      const id = findAssetByPath(ctx, abs);
      return id !== null ? { assetId: id } : { path: abs };
    };
    const cli = await openCreative(ctx, args, { needsCredentials: true });
    try {
      const task = await cli.creative.startLipsync({
        mode: v.video !== undefined ? 'video' : 'image', audio: ref(v.audio),
        ...(v.video !== undefined ? { video: ref(String(v.video)) } : { image: ref(String(v.image)) }),
        ...(res ? { resolution: res as '360p' } : {}),
      });
      return await waitAndReport(cli, task, args, out);
    } finally {
      await cli.close();
    }
  },
};
