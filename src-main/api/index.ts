import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { Api, ApiEnvelope, ApiMethod } from '../../src-preload/contract';
import { startCatalogueIndex } from '../search/catalogue-index';
import { groupInBackground } from '../library/similarity/background';
import type { LibraryCtx } from '../library/context';
import { addFolder, folderRemovals, listFolders, refreshOnline, relinkFolder, removeFolder, resumeRemovals } from '../library/folders';
import { Scanner } from '../library/scan';
import { thumbQueue } from '../library/thumb-queue';
import { facets, matchingIds, search } from '../search/search';
import { cellStates } from '../library/cell-states';
import { getAssetDetail } from '../library/assets';
import { editKeywords, listKeywords, removeKeywordsEach, setCaption, setKeywords, setLabel, setRating, setRightsFields, setTitle, undo } from '../library/edits';
import { applyPreset, deletePreset, listPresets, savePreset } from '../library/presets';
import { ensureFullImage, ensurePreview } from '../library/thumbs';
import { mediaToken } from '../core/media';
import { histogram } from '../library/histogram';
import { fillMissingFingerprints, findGroups } from '../library/similarity';
import { startWatching } from '../library/watch';
import { closeMetadataReader } from '../metadata/reader';
import { ApiError } from '../core/errors';
import { errorShape } from './envelope';
import { schemas } from './schemas';
import { log } from '../core/log';
import type { ServiceHost } from './service';
import { createTagsmith, type TagsmithOptions } from './tagsmith';
import { workflowMethods, type WorkflowOptions } from './workflows';
import { uploadMethods } from './upload';
import { creativeMethods } from './creative';
import { analysisMethods } from './analysis';
import { collectionMethods } from './collections';
import { systemMethods, type SystemOptions } from './system';
import { studioMethods } from './studio';
import { StudioLive } from '../studio/live';
import { renameMethods } from './rename';
import { similarMethods } from './similar';
import { queueFingerprintBackfill } from '../workflows/fingerprint-backfill';

export interface ApiOptions extends Omit<TagsmithOptions, 'scanner'>, WorkflowOptions, SystemOptions {
  /** Native folder picker (Electron's dialog); absent elsewhere. */
  pickFolder?: () => Promise<string | null>;
  /** True under Electron. */
  native?: boolean;
  /** Watch library folders for changes while running (default true). */
  watch?: boolean;
  /** Rescan every online folder at start (catches changes made while closed; resumes an interrupted scan). */
  rescanOnStart?: boolean;
  /** Compute the fingerprints pictures still lack (a library catalogued before them) as a background batch (the app: on). */
  backfillFingerprints?: boolean;
}

export interface ApiHost {
  api: Api;
  /** Validate the arguments, run the method, and wrap the outcome in an envelope. Never throws. */
  invoke(method: string, args: unknown): Promise<ApiEnvelope<unknown>>;
  scanner: Scanner;
  service: ServiceHost;
  dispose(): Promise<void>;
}

function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}

export function createApi(ctx: LibraryCtx, opts: ApiOptions = {}): ApiHost {
  // Searches are answered from memory once the catalogue is indexed (search/catalogue-index/).
  startCatalogueIndex(ctx.db);
  // Similar groups are computed in a worker thread, never inside a search (issue 17).
  const stopGrouping = groupInBackground(ctx);
  const scanner = new Scanner(ctx);
  // The queue with every job kind and collector (createTagsmith); it starts below, once the
  // Api is built.
  const service = createTagsmith(ctx, { ...opts, scanner, startQueue: false });
  const version = appVersion();
  const scanAll = (folderIds: number[]): void => {
    for (const id of folderIds) {
      scanner.enqueue(id).catch((err: unknown) => log.error('scan failed', err));
    }
  };

  // A member of a studio syncs with it continuously (nothing runs for a private library).
  const studio = new StudioLive(ctx);
  const api: Api = {
    async appInfo() {
      return { version, dataDir: ctx.paths.dataDir, native: opts.native ?? false };
    },
    async listFolders() {
      return listFolders(ctx, (id) => scanner.isScanning(id));
    },
    async addFolder({ path }) {
      // The folder may be one just removed, whose last photos are still going.
      await folderRemovals(ctx);
      const folder = addFolder(ctx, path);
      ctx.events.emit('foldersChanged', {});
      scanAll([folder.id]);
      return { ...folder, scanning: true };
    },
    async removeFolder({ id }) {
      if (scanner.isScanning(id)) scanner.cancel();
      // Marked at once (it leaves the folder list now; an addFolder right after waits for it);
      // its photos go in steps once the cancelled scan has stopped.
      const removal = removeFolder(ctx, id, scanner.waitForIdle());
      ctx.events.emit('foldersChanged', {});
      try {
        await removal;
      } finally {
        ctx.events.emit('libraryChanged', { reason: 'folders' });
      }
    },
    async relinkFolder({ id, path }) {
      const folder = relinkFolder(ctx, id, path);
      ctx.events.emit('foldersChanged', {});
      scanAll([folder.id]);
      return folder;
    },
    async rescan({ folderId }) {
      refreshOnline(ctx);
      const folders = listFolders(ctx).filter((f) => folderId === undefined || f.id === folderId);
      if (folderId !== undefined && folders.length === 0) throw new ApiError('not_found', 'That folder is no longer in the library.');
      scanAll(folders.map((f) => f.id));
    },
    async cancelScan() {
      scanner.cancel();
    },
    async pickFolder() {
      return opts.pickFolder ? opts.pickFolder() : null;
    },
    async search({ query, page }) {
      return search(ctx, query, page);
    },
    async searchIds({ query }) {
      return matchingIds(ctx, query);
    },
    async getAsset({ id }) {
      const previewPath = await ensurePreview(ctx, id).catch((err: unknown) => {
        log.warn('preview failed', err);
        return null;
      });
      return getAssetDetail(ctx, id, previewPath);
    },
    async getFullImage({ id }) {
      const full = await ensureFullImage(ctx, id);
      return { token: full.path ? mediaToken(full.path) : null, source: full.source, note: full.note };
    },
    async getHistogram({ id }) {
      return histogram(ctx, id);
    },
    async similarGroups({ ids }) {
      await fillMissingFingerprints(ctx, ids ? { assetIds: ids } : {});
      return findGroups(ctx.db, ids).map((g) => ({ kind: g.kind, members: g.members, best: g.best }));
    },
    async setVisibleAssets({ ids }) {
      thumbQueue(ctx).setVisible(ids);
    },
    async facets() {
      return facets(ctx);
    },
    async cellStates({ ids }) {
      return cellStates(ctx, ids);
    },
    async editKeywords({ ids, add, remove }) {
      await editKeywords(ctx, ids, add ?? [], remove ?? []);
    },
    async removeKeywordsEach({ removals }) {
      await removeKeywordsEach(ctx, removals);
    },
    async setKeywords({ id, keywords }) {
      await setKeywords(ctx, id, keywords);
    },
    async setCaption({ ids, caption }) {
      await setCaption(ctx, ids, caption);
    },
    async setTitle({ ids, title }) {
      await setTitle(ctx, ids, title);
    },
    async setRating({ ids, rating }) {
      await setRating(ctx, ids, rating);
    },
    async setLabel({ ids, label }) {
      await setLabel(ctx, ids, label);
    },
    async setRightsFields({ ids, fields }) {
      await setRightsFields(ctx, ids, fields);
    },
    async listPresets() {
      return listPresets(ctx);
    },
    async savePreset({ name, fields, keywords }) {
      return savePreset(ctx, name, fields, keywords);
    },
    async deletePreset({ id }) {
      deletePreset(ctx, id);
    },
    async applyPreset({ id, ids }) {
      await applyPreset(ctx, id, ids);
    },
    async undo() {
      return await undo(ctx);
    },
    async listKeywords({ prefix, limit, ids }) {
      return listKeywords(ctx, prefix, limit, ids);
    },
    ...service.methods,
    ...workflowMethods(ctx, service, opts),
    ...uploadMethods(ctx, service),
    ...analysisMethods(ctx, service),
    ...collectionMethods(ctx),
    ...creativeMethods(ctx, service),
    ...systemMethods(ctx, service, opts),
    ...renameMethods(ctx),
    ...similarMethods(ctx),
    ...studioMethods(ctx, studio),
  };

  if (opts.backfillFingerprints) queueFingerprintBackfill(ctx, service.queue);
  if (opts.startQueue !== false) service.queue.start();
  studio.start();
  const stopWatching = opts.watch === false ? () => {} : startWatching(ctx, scanner);
  // A folder removal the app quit during is finished now, in the background.
  resumeRemovals(ctx).catch((err: unknown) => log.error('finishing a folder removal failed', err));
  if (opts.rescanOnStart) {
    refreshOnline(ctx);
    scanAll(listFolders(ctx).filter((f) => f.online).map((f) => f.id));
  }

  const invoke = async (method: string, args: unknown): Promise<ApiEnvelope<unknown>> => {
    if (!Object.hasOwn(schemas, method)) {
      return { ok: false, error: { kind: 'validation', message: `Unknown request “${method.slice(0, 64)}”.` } };
    }
    const name = method as ApiMethod;
    const parsed = schemas[name].safeParse(args);
    if (!parsed.success) return { ok: false, error: describeValidation(name, parsed.error) };
    try {
      const fn = api[name] as (a: unknown) => Promise<unknown>;
      const value = await fn(parsed.data ?? {});
      return { ok: true, value: value ?? null };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, error: errorShape(err) };
      log.error(`${name} failed`, err);
      return {
        ok: false,
        error: { kind: 'internal', message: 'Something went wrong while doing that. Try again; if it keeps happening, see the log.' },
      };
    }
  };

  return {
    api,
    invoke,
    scanner,
    service,
    async dispose() {
      await studio.stop();
      stopWatching();
      stopGrouping();
      scanner.cancel();
      await scanner.waitForIdle();
      await service.dispose();
      await closeMetadataReader();
      ctx.db.close();
    },
  };
}

function describeValidation(method: ApiMethod, error: z.ZodError): { kind: 'validation'; message: string; field?: string } {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  const what = field ? `“${field}” ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}` : issue?.message ?? 'invalid arguments';
  return field
    ? { kind: 'validation', message: `Invalid request to ${method}: ${what}.`, field }
    : { kind: 'validation', message: `Invalid request to ${method}: ${what}.` };
}
