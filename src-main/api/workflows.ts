import { rename, writeFile } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import type { AgencyId, Api, RunTarget, StockFieldsView, SyncStateView } from '../../src-preload/contract';
import { fillMissingFingerprints } from '../library/similarity';
import { getAssetRow } from '../library/assets';
import { exportKeywordList, importKeywordList } from '../library/keyword-list';
import { setStockFields } from '../library/edits';
import { agencyCategories, readStockFields } from '../library/stock-fields';
import type { LibraryCtx } from '../library/context';
import { AGENCY_PROFILES, agencyProfile, agencyView, isAgencyId } from '../metadata/agencies';
import { sentRecords } from '../upload/sent-records';
import { checkAssets } from '../metadata/agency-check';
import { buildAgencyCsv } from '../metadata/csv-export';
import { previewWrite } from '../metadata/preview';
import { getSyncState } from '../metadata/file-state';
import { writeThroughQueue } from '../metadata/write-job';
import { checkKeywords, checkTextLimits } from '../metadata/stock-limits';
import * as wf from '../workflows';
import { ApiError, notFound } from '../core/errors';
import type { ServiceHost } from './service';

// The keywording/captioning workflows and writing metadata into files, as Api methods. The
// logic lives in workflows/ and metadata/; this maps arguments and errors.

export type WorkflowMethods = Pick<
  Api,
  | 'previewKeywordRun' | 'startKeywordRun' | 'previewCaptionRun' | 'startCaptionRun' | 'listRuns' | 'getAssetReview'
  | 'acceptSuggestions' | 'acceptAbove' | 'acceptKeyword' | 'rejectSuggestions' | 'rejectPending' | 'moveKeyword'
  | 'editCaptionSuggestion' | 'acceptCaptions' | 'rejectCaptions' | 'revertRun' | 'getKeywordSettings' | 'setKeywordSettings'
  | 'checkKeywords' | 'checkTextLimits' | 'listLibraryKeywords' | 'renameKeyword' | 'mergeKeywords' | 'deleteKeyword'
  | 'importKeywordList' | 'exportKeywordList'
  | 'previewWrite' | 'writeMetadata' | 'syncState' | 'exportCsv' | 'pickSavePath' | 'listAgencies' | 'checkForAgency' | 'getStockFields' | 'setStockFields'
>;

export interface WorkflowOptions {
  /** Native save dialog (Electron); absent elsewhere. */
  pickSavePath?: (defaultName: string) => Promise<string | null>;
}

export function workflowMethods(ctx: LibraryCtx, service: ServiceHost, opts: WorkflowOptions = {}): WorkflowMethods {
  const queue = service.queue;
  // The renderer is untrusted: it may only save a CSV where the user chose in the save dialog,
  // never to a path of its own (a CSV of captions it controls over ~/.bashrc runs code).
  const chosenPaths = new Set<string>();
  const edited = (assetIds: number[]) => {
    if (assetIds.length) ctx.events.emit('libraryChanged', { reason: 'edit', assetIds });
  };
  // One call per similar group needs every photo's fingerprint: the missing ones (a library
  // catalogued before them) are computed from their thumbnails first.
  const fingerprintsFor = async (target: RunTarget, options: { perGroup?: boolean }): Promise<void> => {
    if (options.perGroup) await fillMissingFingerprints(ctx, { assetIds: await wf.resolveTarget(ctx, target) });
  };
  return {
    async previewKeywordRun({ target, options }) {
      await fingerprintsFor(target, options);
      return wf.forWindow(await wf.previewKeywordRun(ctx, queue, target, options));
    },
    async startKeywordRun({ target, options }) {
      await fingerprintsFor(target, options);
      return wf.forWindow(await wf.startKeywordRun(ctx, queue, target, options));
    },
    async previewCaptionRun({ target, options }) {
      await fingerprintsFor(target, options);
      return wf.forWindow(await wf.previewCaptionRun(ctx, queue, target, options));
    },
    async startCaptionRun({ target, options }) {
      await fingerprintsFor(target, options);
      return wf.forWindow(await wf.startCaptionRun(ctx, queue, target, options));
    },
    async listRuns({ limit, assetId }) {
      return wf.listRuns(ctx, { limit, assetId });
    },
    async getAssetReview({ assetId, runId }) {
      return wf.getAssetReview(ctx, assetId, { runId });
    },
    async acceptSuggestions({ ids }) {
      const r = await wf.acceptSuggestions(ctx, ids);
      edited(r.assetIds);
      return r;
    },
    async acceptAbove({ assetIds, minScore, runIds }) {
      const r = await wf.acceptAbove(ctx, assetIds, minScore, { runIds });
      edited(r.assetIds);
      return r;
    },
    async acceptKeyword({ assetIds, keyword, runIds }) {
      const r = await wf.acceptKeyword(ctx, assetIds, keyword, { runIds });
      edited(r.assetIds);
      return r;
    },
    async rejectSuggestions({ ids }) {
      return wf.rejectSuggestions(ctx, ids);
    },
    async rejectPending({ assetIds, belowScore, keyword, runIds }) {
      return wf.rejectPending(ctx, assetIds, { belowScore, keyword, runIds });
    },
    async moveKeyword({ assetId, from, to }) {
      const order = wf.moveKeyword(ctx, assetId, from, to);
      edited([assetId]);
      return order;
    },
    async editCaptionSuggestion({ id, text }) {
      wf.editCaptionSuggestion(ctx, id, text);
    },
    async acceptCaptions({ ids, as }) {
      const assetIds = await wf.acceptCaptions(ctx, ids, { as });
      edited(assetIds);
      return assetIds;
    },
    async rejectCaptions({ ids }) {
      return wf.rejectCaptions(ctx, ids);
    },
    async revertRun({ runId }) {
      const r = await wf.revertRun(ctx, runId);
      edited(r.assetIds);
      return r;
    },
    async getKeywordSettings() {
      return wf.getKeywordSettings(ctx);
    },
    async setKeywordSettings({ settings }) {
      try {
        return wf.setKeywordSettings(ctx, settings);
      } catch (err) {
        if (err instanceof wf.SettingsError) throw new ApiError('validation', err.message, err.field);
        throw err;
      }
    },
    async checkKeywords({ keywords }) {
      return checkKeywords(keywords, wf.getKeywordSettings(ctx).limit);
    },
    async checkTextLimits({ title, caption, agency }) {
      return checkTextLimits({ title, caption }, agency);
    },
    async listLibraryKeywords() {
      return wf.listLibraryKeywords(ctx);
    },
    async renameKeyword({ from, to, children }) {
      const r = await wf.renameKeyword(ctx, from, to, { children });
      edited(r.assetIds);
      return r;
    },
    async mergeKeywords({ from, into, children }) {
      const r = await wf.mergeKeywords(ctx, from, into, { children });
      edited(r.assetIds);
      return r;
    },
    async deleteKeyword({ name, children }) {
      const r = await wf.deleteKeyword(ctx, name, { children });
      edited(r.assetIds);
      return r;
    },
    async importKeywordList({ text }) {
      return importKeywordList(ctx, text);
    },
    async exportKeywordList({ path }) {
      if (!isAbsolute(path) || !chosenPaths.has(path)) {
        throw new ApiError('validation', 'Choose where to save the keyword list in the save dialog.', 'path');
      }
      const text = exportKeywordList(ctx);
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        await writeFile(tmp, text, 'utf8');
        await rename(tmp, path);
      } catch (err) {
        throw new ApiError('io', `Could not save ${basename(path)}: ${(err as Error).message}`);
      }
      return { path, lines: text ? text.split('\n').length - 1 : 0 };
    },
    async previewWrite({ ids }) {
      const r = await previewWrite(ctx, ids);
      return { changes: r.changes.map((c) => ({ ...c, field: String(c.field) })), problems: r.problems };
    },
    async writeMetadata({ ids }) {
      const label = `Write metadata into ${ids.length} file${ids.length === 1 ? '' : 's'}`;
      const { results } = await writeThroughQueue(ctx, queue, ids, label);
      edited(ids);
      return results;
    },
    async syncState({ id }) {
      const s = getSyncState(ctx, id);
      const view: SyncStateView = {
        assetId: s.assetId,
        status: s.status,
        error: s.error,
        unsavedFields: s.unsavedFields.map(String),
        conflicts: s.conflicts.map((c) => ({ field: String(c.field), fileValue: c.file, libraryValue: c.library })),
        writtenAt: s.writtenAt,
      };
      return view;
    },
    async exportCsv({ ids, agency, path, force }) {
      if (!agencyProfile(agency).csv) throw new ApiError('validation', `${agencyProfile(agency).name} documents no metadata CSV. Choose an agency that does.`, 'agency');
      const built = await buildAgencyCsv(ctx, ids, agency, { force });
      if (path !== undefined) {
        if (!isAbsolute(path) || !chosenPaths.has(path)) throw new ApiError('validation', 'Choose where to save the CSV file.', 'path');
        try {
          await writeFile(path, built.csv, 'utf8');
        } catch {
          throw new ApiError('io', `The CSV could not be saved to ${path}. Check that the folder exists and can be written to.`, 'path');
        }
      }
      const warnings = built.assets.flatMap((a) => a.problems.map((p) => `${basename(a.path)}: ${p}`));
      return { csv: built.csv, rows: built.rows, warnings, verdicts: built.assets };
    },
    async listAgencies() {
      return AGENCY_PROFILES.map(agencyView);
    },
    async checkForAgency({ ids, agency }) {
      return (await checkAssets(ctx, ids, agency)).map(({ assetId, path, ok, problems, issues }) => ({ assetId, path, ok, problems, issues }));
    },
    async getStockFields({ id }) {
      if (!getAssetRow(ctx, id)) throw notFound('The item');
      const f = readStockFields(ctx.db, id);
      const categories: StockFieldsView['categories'] = {};
      for (const p of AGENCY_PROFILES) {
        const list = agencyCategories(f, p.id);
        if (list.length) categories[p.id] = list;
      }
      const sent = sentRecords(ctx.db, id).filter((r) => isAgencyId(r.agency)).map((r) => ({
        agency: r.agency as AgencyId, name: agencyProfile(r.agency as AgencyId).name, sentAt: r.sentAt, remote: r.remote,
      }));
      return { editorial: f.editorial, releases: f.releases, categories, sent };
    },
    async setStockFields({ ids, editorial, releases, categories }) {
      if (categories) {
        const p = agencyProfile(categories.agency);
        const known = new Set((p.categories?.list ?? []).map((c) => c.value));
        const bad = categories.values.find((v) => !known.has(v));
        if (bad !== undefined) throw new ApiError('validation', `“${bad}” is not one of ${p.name}'s categories.`, 'categories');
        if (p.categories && categories.values.length > p.categories.max) throw new ApiError('validation', `${p.name} takes at most ${p.categories.max} categories.`, 'categories');
      }
      await setStockFields(ctx, ids, { editorial, releases, categories });
    },
    async pickSavePath({ defaultName }) {
      const chosen = opts.pickSavePath ? await opts.pickSavePath(defaultName) : null;
      if (chosen) chosenPaths.add(chosen);
      return chosen;
    },
  };
}
