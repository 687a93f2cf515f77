import type { StudioApi } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import type { LibraryCtx } from '../library/context';
import { photoHistory } from '../library/history';
import { StudioError } from '../studio/client';
import { joinPreview, joinStudio, leaveStudio, probeStudio } from '../studio/join';
import type { StudioLive } from '../studio/live';
import { setSubset } from '../studio/subset';
import { mapVolume } from '../studio/volumes';

// Settings › Studio: join, leave, sync now, and the state the top bar shows.

const asApiError = (err: unknown): never => {
  if (err instanceof StudioError) throw new ApiError(err.code === 'bad_url' ? 'validation' : 'io', err.message, err.code === 'bad_url' ? 'url' : undefined);
  throw err;
};

export function studioMethods(ctx: LibraryCtx, live: StudioLive): StudioApi {
  return {
    async studioStatus() {
      return live.state();
    },
    async studioProbe({ url }) {
      const p = await probeStudio(url).catch(asApiError);
      return { url: p.url, studioName: p.hello.studio.name, fingerprint: p.fingerprint, sharedPhotos: joinPreview(ctx).photos };
    },
    async studioJoin(req) {
      await joinStudio(ctx, req).catch(asApiError);
      live.start();
      return live.state();
    },
    async studioLeave() {
      await live.stop();
      await leaveStudio(ctx.paths.dataDir).catch(asApiError);
      const state = live.state();
      ctx.events.emit('studioChanged', state);
      return state;
    },
    async studioSyncNow() {
      if (!live.state().member) throw new ApiError('validation', 'This library is not a member of a studio.');
      return live.syncNow();
    },
    async studioMapVolume({ volume, path }) {
      if (!live.state().member) throw new ApiError('validation', 'This library is not a member of a studio.');
      await mapVolume(ctx, volume, path).catch((err: unknown) => {
        if (err instanceof StudioError && err.code === 'bad_path') throw new ApiError('validation', err.message, 'path');
        return asApiError(err);
      });
      const state = live.state();
      ctx.events.emit('studioChanged', state);
      return state;
    },
    async studioSetSubset({ subset }) {
      if (!live.state().member) throw new ApiError('validation', 'This library is not a member of a studio.');
      let widened = false;
      try {
        widened = setSubset(ctx.paths.dataDir, subset, ctx).widened;
      } catch (err) {
        if (err instanceof StudioError && (err.code === 'bad_path' || err.code === 'bad_collection')) throw new ApiError('validation', err.message, 'subset');
        asApiError(err);
      }
      // Grown: the photos now included are copied here (the sync pulls the log again for them).
      return widened ? live.syncNow() : (ctx.events.emit('studioChanged', live.state()), live.state());
    },
    async assetHistory({ id }) {
      return photoHistory(ctx, id);
    },
  };
}
