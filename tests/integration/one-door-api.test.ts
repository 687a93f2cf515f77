import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS } from '../../src-preload/api-methods';
import { changesSince, lastPosition } from '../../src-main/catalogue/change-log';
import { createApi, type ApiHost } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { tagsmithSync } from '../helpers/cli';

// The one door, seen from outside (issue 33): every Api method that changes the catalogue, called
// as the window calls it (ApiHost.invoke: the schema check, then the method), leaves at least one
// entry in the change log; and so does every CLI command that changes it, run as a user runs it.
// Every Api method is named below in one list, so a new method must say which it is.

/** Methods that only read, or that change nothing the catalogue holds (the queue, settings, credentials, creative tasks, files written out). */
const NO_CATALOGUE_CHANGE = [
  'appInfo', 'systemStatus', 'systemSettings', 'setSystemSettings', 'listBackups', 'backupNow', 'reportError', 'getViewState', 'setViewState',
  'listFolders', 'cancelScan', 'pickFolder', 'search', 'searchIds', 'getAsset', 'getFullImage', 'getHistogram', 'assetHistory', 'similarGroups', 'setVisibleAssets', 'facets',
  'listPresets', 'listCollections', 'listKeywords', 'serviceSettings', 'setServiceUrl', 'setCredentials', 'removeCredentials', 'testConnection',
  'queueStatus', 'listBatches', 'listJobs', 'controlQueue', 'getCaps', 'setCaps', 'previewKeywordRun', 'previewCaptionRun', 'listRuns',
  'getAssetReview', 'getKeywordSettings', 'checkKeywords', 'checkTextLimits', 'listLibraryKeywords', 'exportKeywordList', 'previewWrite',
  'syncState', 'exportCsv', 'pickSavePath', 'listAgencies', 'checkForAgency', 'getStockFields', 'agencyAccount', 'setAgencyAccount',
  'removeAgencyAccount', 'forgetAgencyHostKey', 'uploadToAgency', 'previewAnalysisRun', 'getAssetAnalysis', 'qualityHistogram', 'listVoices',
  'previewSpeech', 'startSpeech', 'startLipsync', 'modelRules', 'previewImageJob', 'startGenerate', 'startEdit', 'startFaceSwap',
  'startVectorize', 'listCreativeTasks', 'getCreativeTask', 'creationOf', 'cancelCreativeTask', 'keepWaitingCreativeTask', 'retryCreativeTask',
  'refetchResult', 'creativeSettings', 'setCreativeSettings', 'previewRename', 'findSimilar', 'studioStatus', 'studioProbe', 'studioLeave', 'cellStates',
];

/**
 * Methods that change the catalogue through the door but need a studio server to do it: joining
 * records what the library holds as its own changes, a sync records the other members' changes
 * (catalogue/remote-log.ts). Proven against a real server on real PostgreSQL in studio-seed,
 * studio-sync and studio-live.
 */
const THROUGH_THE_STUDIO = ['studioJoin', 'studioSyncNow', 'studioMapVolume', 'studioSetSubset'];

/**
 * Methods that change the catalogue but are not recorded yet: the shrinking list (see
 * tests/unit/one-door.test.ts, which lists the SQL behind them). Route one through the door and
 * move it to SCENARIOS.
 * - startKeywordRun, startCaptionRun, startAnalysisRun: what a run stores goes through the door
 *   (suggestion.add, caption.add, analysis.quality|ugc|faces|colors; proven in keywording,
 *   captioning and analysis), but only when its jobs come back from the service, after the
 *   method has returned.
 * - writeMetadata: what a file now holds (its size, time, written state) is the scan's kind of change.
 * - setKeywordSettings: keyword hygiene settings (not yet counted as catalogue state).
 * - restoreBackup: replaces the catalogue file as a whole (a studio replica re-joins).
 */
const NOT_YET = ['startKeywordRun', 'startCaptionRun', 'startAnalysisRun', 'writeMetadata', 'setKeywordSettings', 'restoreBackup'];

let root: string;
let ctx: LibraryCtx;
let host: ApiHost;
let ids: number[];
let keywordRun: number;
let captionRun: number;
const suggestion = (asset: number, word: string): number =>
  ctx.db.prepare('SELECT id FROM suggestions WHERE asset_id = ? AND keyword = ?').pluck().get(asset, word) as number;
const captionOf = (asset: number): number => ctx.db.prepare('SELECT id FROM caption_suggestions WHERE asset_id = ?').pluck().get(asset) as number;
const collectionId = (name: string): number => ctx.db.prepare('SELECT id FROM collections WHERE name = ?').pluck().get(name) as number;
const presetId = (name: string): number => ctx.db.prepare('SELECT id FROM metadata_presets WHERE name = ?').pluck().get(name) as number;
const folderId = (): number => ctx.db.prepare('SELECT id FROM folders ORDER BY id LIMIT 1').pluck().get() as number;

/** Each method that changes the catalogue, called as the window calls it, with what its first recorded change is. */
const SCENARIOS: [method: string, args: () => unknown, firstOp: RegExp][] = [
  ['editKeywords', () => ({ ids, add: ['harbour', 'boat'] }), /^add$/],
  ['setKeywords', () => ({ id: ids[0], keywords: ['harbour', 'boat', 'dusk'] }), /^add$/],
  ['removeKeywordsEach', () => ({ removals: [{ id: ids[0], remove: ['dusk'] }, { id: ids[1], remove: ['boat'] }] }), /^remove$/],
  ['setCaption', () => ({ ids, caption: 'Boats at dusk' }), /^set$/],
  ['setTitle', () => ({ ids: [ids[0]], title: 'Harbour' }), /^set$/],
  ['setRating', () => ({ ids, rating: 3 }), /^set$/],
  ['setLabel', () => ({ ids, label: 'red' }), /^set$/],
  ['setRightsFields', () => ({ ids, fields: { creator: 'Ana', city: 'Porto' } }), /^set$/],
  ['setStockFields', () => ({ ids, editorial: true }), /^set$/],
  ['setFlag', () => ({ ids, flag: 'pick' }), /^set$/],
  ['rejectBelow', () => ({ target: { assetIds: ids }, field: 'quality', threshold: 0.5 }), /^set$/],
  ['savePreset', () => ({ name: 'Porto', fields: { copyright: '© Ana' }, keywords: ['portugal'] }), /^preset\.save$/],
  ['applyPreset', () => ({ id: presetId('Porto'), ids }), /^set$/],
  ['deletePreset', () => ({ id: presetId('Porto') }), /^preset\.delete$/],
  ['createCollection', () => ({ name: 'Best', kind: 'manual' }), /^collection\.create$/],
  ['updateCollection', () => ({ id: collectionId('Best'), name: 'Best of Porto' }), /^collection\.update$/],
  ['addToCollection', () => ({ id: collectionId('Best of Porto'), ids }), /^add$/],
  ['reorderCollection', () => ({ id: collectionId('Best of Porto'), ids: [ids[2]], beforeId: ids[0] }), /^move$/],
  ['removeFromCollection', () => ({ id: collectionId('Best of Porto'), ids: [ids[1]] }), /^remove$/],
  ['deleteCollection', () => ({ id: collectionId('Best of Porto') }), /^collection\.delete$/],
  ['undo', () => ({}), /^collection\.restore$/],
  ['acceptSuggestions', () => ({ ids: [suggestion(ids[0], 'sea')] }), /^(add|suggestion\.accept)$/],
  ['acceptAbove', () => ({ assetIds: [ids[1]], minScore: 0.8 }), /^(add|suggestion\.accept)$/],
  ['acceptKeyword', () => ({ assetIds: [ids[2]], keyword: 'evening' }), /^(add|suggestion\.accept)$/],
  ['rejectSuggestions', () => ({ ids: [suggestion(ids[2], 'sea')] }), /^suggestion\.reject$/],
  ['rejectPending', () => ({ assetIds: ids }), /^suggestion\.reject$/],
  ['moveKeyword', () => ({ assetId: ids[0], from: 0, to: 1 }), /^set$/],
  ['editCaptionSuggestion', () => ({ id: captionOf(ids[0]), text: 'Boats in the harbour' }), /^caption\.edit$/],
  ['acceptCaptions', () => ({ ids: [captionOf(ids[0])] }), /^(set|caption\.accept)$/],
  ['rejectCaptions', () => ({ ids: [captionOf(ids[1])] }), /^caption\.reject$/],
  ['revertRun', () => ({ runId: keywordRun }), /^remove$/],
  ['renameKeyword', () => ({ from: 'harbour', to: 'port' }), /^(keyword\.rename|add|remove)$/],
  ['mergeKeywords', () => ({ from: ['boat'], into: 'port' }), /^(keyword\.merge|add|remove)$/],
  ['deleteKeyword', () => ({ name: 'port' }), /^(keyword\.delete|remove)$/],
  ['importKeywordList', () => ({ text: 'Places\n\tPorto\n\t\t{Oporto}\n' }), /^vocabulary\.add$/],
  ['renameAssets', () => ({ assetIds: ids, template: 'porto-{seq:3}' }), /^set$/],
  [
    'rescan',
    () => {
      // A file copied into the folder: the scan adds it.
      const rel = ctx.db.prepare('SELECT rel_path FROM assets WHERE removed_at IS NULL ORDER BY id LIMIT 1').pluck().get() as string;
      copyFileSync(join(root, 'photos', rel), join(root, 'photos', 'copy.jpg'));
      return { folderId: folderId() };
    },
    /^asset\.add$/,
  ],
  ['relinkFolder', () => ({ id: folderId(), path: join(root, 'photos') }), /^folder\.relink$/],
  ['removeFolder', () => ({ id: folderId() }), /^folder\.remove$/],
  ['addFolder', () => ({ path: join(root, 'photos') }), /^folder\.add$/],
];

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-one-door-')));
  mkdirSync(join(root, 'photos'));
  for (const [name, colour] of [['one', '#a33'], ['two', '#3a3'], ['three', '#33a']]) {
    await sharp({ create: { width: 48, height: 32, channels: 3, background: colour } }).jpeg().toFile(join(root, 'photos', `${name}.jpg`));
  }
  ctx = openLibrary(join(root, 'lib'));
  host = createApi(ctx, { watch: false, startQueue: false });
  const added = await host.invoke('addFolder', { path: join(root, 'photos') });
  expect(added.ok).toBe(true);
  await host.scanner.waitForIdle();
  ids = ctx.db.prepare('SELECT id FROM assets ORDER BY name').pluck().all() as number[];
  expect(ids).toHaveLength(3);
  // An AI run's suggestions and quality scores, as a finished run leaves them (the service is not what is tested here).
  const db = ctx.db;
  db.transaction(() => {
    const run = db.prepare("INSERT INTO ai_runs (kind, params, params_key, lang, created_at, batch_id, status) VALUES (?, '{}', ?, 'en', 0, ?, 'done')");
    keywordRun = Number(run.run('keywords', 'k', 'batch-k').lastInsertRowid);
    captionRun = Number(run.run('caption', 'c', 'batch-c').lastInsertRowid);
    const member = db.prepare("INSERT INTO ai_run_assets (run_id, asset_id, state) VALUES (?, ?, 'done')");
    const suggest = db.prepare("INSERT INTO suggestions (asset_id, run_id, keyword, raw, lang, score, position) VALUES (?, ?, ?, ?, 'en', ?, ?)");
    const caption = db.prepare("INSERT INTO caption_suggestions (asset_id, run_id, text, raw, caption_len) VALUES (?, ?, ?, ?, 'short')");
    const quality = db.prepare("INSERT INTO asset_quality (asset_id, score, params, measured_at) VALUES (?, ?, '{}', 0)");
    ids.forEach((id, i) => {
      member.run(keywordRun, id);
      member.run(captionRun, id);
      ['sea', 'evening', 'sky'].forEach((w, j) => suggest.run(id, keywordRun, w, w, 0.9 - j * 0.15, j));
      caption.run(id, captionRun, `Caption ${i}`, `Caption ${i}`);
      quality.run(id, i === 0 ? 0.2 : 0.9);
    });
  })();
});

afterAll(async () => {
  await host.dispose();
  ctx.db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('every change to the catalogue leaves an entry in the change log', () => {
  it('names every Api method once: no change, a scenario below, or not yet through the door', () => {
    const named = [...NO_CATALOGUE_CHANGE, ...SCENARIOS.map(([m]) => m), ...NOT_YET, ...THROUGH_THE_STUDIO];
    expect(named.filter((m, i) => named.indexOf(m) !== i), 'named twice').toEqual([]);
    expect([...API_METHODS].filter((m) => !named.includes(m)), 'say whether these change the catalogue').toEqual([]);
    expect(named.filter((m) => !(API_METHODS as readonly string[]).includes(m)), 'no such method').toEqual([]);
  });

  it('through the Api: each method that changes the catalogue records at least one change, of the kind it made', async () => {
    const silent: string[] = [];
    for (const [method, args, firstOp] of SCENARIOS) {
      const before = lastPosition(ctx.db);
      const r = await host.invoke(method, args());
      expect(r.ok, `${method}: ${JSON.stringify(r)}`).toBe(true);
      if (method === 'rescan') await host.scanner.waitForIdle();
      const after = changesSince(ctx.db, before, 100_000);
      if (!after.length) silent.push(method);
      else expect(after[0].op, method).toMatch(firstOp);
    }
    expect(silent, 'these changed the catalogue without a change in the log').toEqual([]);
  });
});

describe('the CLI records what it changes', () => {
  let lib: string;
  let photos: string;
  const position = (): number => {
    const c = openLibrary(lib);
    try {
      return lastPosition(c.db);
    } finally {
      c.db.close();
    }
  };
  beforeAll(async () => {
    lib = join(root, 'cli-lib');
    photos = join(root, 'cli-photos');
    mkdirSync(photos);
    await sharp({ create: { width: 48, height: 32, channels: 3, background: '#888' } }).jpeg().toFile(join(photos, 'a.jpg'));
    writeFileSync(join(root, 'list.txt'), 'Animals\n\tCat\n');
  });

  it('index, tag, rate, label, collection, keyword-list, rename and undo each add to the change log', () => {
    const a = join(photos, 'a.jpg');
    const commands: string[][] = [
      ['index', photos],
      ['tag', a, '--add', 'cat,dog'],
      ['rate', a, '--stars', '4'],
      ['label', a, '--color', 'green'],
      ['collection', 'create', 'Pets'],
      ['collection', 'add', 'Pets', a],
      ['keyword-list', 'import', join(root, 'list.txt')],
      ['rename', a, '--template', 'pet-{seq:2}'],
      ['undo'],
    ];
    let last = 0;
    const silent: string[] = [];
    for (const args of commands) {
      const r = tagsmithSync(lib, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const now = position();
      if (now <= last) silent.push(args.join(' '));
      last = now;
    }
    expect(silent, 'these changed the catalogue without a change in the log').toEqual([]);
  });
});
