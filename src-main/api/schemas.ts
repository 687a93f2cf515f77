import { z } from 'zod';
import type { ApiMethod } from '../../src-preload/contract';

// The renderer is untrusted: every argument is checked here before any work is done.
// Bounds are generous for real use and small enough that hostile input cannot hurt.

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const isId = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
/**
 * 1 to 1,000,000 asset ids, checked in one plain loop: select-all in a million-photo library
 * sends a million, and zod's check of each element (z.array(id)) held the main thread 30-50 ms.
 */
const ids = z.custom<number[]>((v) => Array.isArray(v) && v.length >= 1 && v.length <= 1_000_000 && v.every(isId), {
  message: 'must be a list of 1 to 1,000,000 asset ids, each a whole number above 0',
});
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'must not contain NUL characters');
const keyword = z.string().min(1).max(500);
const keywords = z.array(keyword).max(1000);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date like 2024-05-31');
const text = z.string().max(20_000);

/** A studio server's address: always HTTPS, a host and maybe a port, nothing else. */
const studioAddress = z.string().max(2000).regex(/^https:\/\/[^\s/?#@]+\/?$/i, 'must be the server’s address, like https://studio-server:8443');
const range = z
  .strictObject({ min: z.number().min(0).max(1e7).optional(), max: z.number().min(0).max(1e7).optional() })
  .refine((r) => r.min === undefined || r.max === undefined || r.min <= r.max, 'the lower end must not be above the upper end');

export const searchQuery = z.strictObject({
  text: z.string().max(1000).optional(),
  kinds: z.array(z.enum(['image', 'video', 'audio'])).max(3).optional(),
  folderId: id.optional(),
  keywords: keywords.optional(),
  withoutKeywords: keywords.optional(),
  noKeywords: z.boolean().optional(),
  minRating: z.number().int().min(0).max(5).optional(),
  takenFrom: isoDate.optional(),
  takenTo: isoDate.optional(),
  camera: z.string().max(500).optional(),
  lens: z.string().max(500).optional(),
  iso: range.optional(),
  focalLength: range.optional(),
  aperture: range.optional(),
  duplicatesOnly: z.boolean().optional(),
  errorsOnly: z.boolean().optional(),
  similarGroups: z.enum(['any', 'burst']).optional(),
  foldGroups: z.boolean().optional(),
  expandedGroups: z.array(id).max(100_000).optional(),
  // analysis filters
  minQuality: z.number().min(0).max(1).optional(),
  maxQuality: z.number().min(0).max(1).optional(),
  ugcClasses: z.array(z.number().int().min(1).max(5)).max(5).optional(),
  hasFaces: z.boolean().optional(),
  minFaces: z.number().int().min(0).max(10_000).optional(),
  maxFaces: z.number().int().min(0).max(10_000).optional(),
  child: z.boolean().optional(),
  ageMin: z.number().min(0).max(200).optional(),
  ageMax: z.number().min(0).max(200).optional(),
  releaseNeeded: z.boolean().optional(),
  flag: z.enum(['pick', 'reject', 'unflagged']).optional(),
  label: z.enum(['red', 'yellow', 'green', 'blue', 'purple', 'none']).optional(),
  sentTo: z.string().min(1).max(40).optional(),
  notSentTo: z.string().min(1).max(40).optional(),
  color: z
    .strictObject({
      hex: z.string().regex(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour like #1e50c8'),
      maxDistance: z.number().min(0).max(400).optional(),
      minShare: z.number().min(0).max(1).optional(),
    })
    .optional(),
  collectionId: id.optional(),
  sort: z.enum(['takenAt', 'name', 'addedAt', 'size', 'quality', 'ugcQuality', 'colorMatch', 'custom']).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});

/** A smart collection's saved search: any filter of a search; sort and order stay the view's. */
const smartQuery = searchQuery.omit({ sort: true, order: true });
const collectionName = z.string().min(1).max(200);

const page = z.strictObject({
  offset: z.number().int().min(0).max(100_000_000),
  limit: z.number().int().min(1).max(5000),
});

const jobState = z.enum(['queued', 'running', 'done', 'failed', 'cancelled', 'unknown', 'paused']);
const count = z.number().int().min(0).max(1e12);

const score = z.number().min(0).max(1);
const lang = z.enum(['en', 'ru', 'es', 'fr', 'de', 'pt', 'it']);
const agency = z.enum(['adobe', 'shutterstock']);
const agencyId = z.enum(['adobe', 'shutterstock', 'getty', 'alamy', 'pond5', 'dreamstime', '123rf', 'depositphotos', 'freepik']);
const target = z.union([z.strictObject({ assetIds: ids }), z.strictObject({ query: searchQuery })]);
const keywordRunOptions = z.strictObject({
  numKeywords: z.number().int().min(1).max(50).optional(),
  threshold: score.optional(),
  lang: lang.optional(),
  colors: z.boolean().optional(),
  numColors: z.number().int().min(1).max(50).optional(),
  force: z.boolean().optional(),
  perGroup: z.boolean().optional(),
});
const captionRunOptions = z.strictObject({ length: z.enum(['short', 'normal', 'long']).optional(), force: z.boolean().optional(), perGroup: z.boolean().optional() });
const runIds = z.array(id).max(10_000).optional();
const keywordList = z.array(z.string().min(1).max(500)).max(10_000);

const analysisRunOptions = z.strictObject({
  kind: z.enum(['quality', 'qualityUgc', 'faces', 'colors']),
  numColors: z.number().int().min(1).max(50).optional(),
  force: z.boolean().optional(),
});
const histogramField = z.enum(['quality', 'ugc']);

const rightsText = z.string().max(2000).nullable().optional();
const rightsFields = z.strictObject({
  headline: rightsText,
  creator: rightsText,
  copyright: rightsText,
  credit: rightsText,
  city: rightsText,
  country: rightsText,
  // IPTC Core / Extension fields of metadata templates (metadata/extended-fields.ts).
  creatorJobTitle: rightsText,
  creatorAddress: rightsText,
  creatorCity: rightsText,
  creatorRegion: rightsText,
  creatorPostalCode: rightsText,
  creatorCountry: rightsText,
  creatorPhone: rightsText,
  creatorEmail: rightsText,
  creatorUrl: rightsText,
  usageTerms: rightsText,
  rightsUrl: rightsText,
  instructions: rightsText,
  source: rightsText,
  createdSublocation: rightsText,
  createdCity: rightsText,
  createdState: rightsText,
  createdCountry: rightsText,
  createdCountryCode: rightsText,
  shownSublocation: rightsText,
  shownCity: rightsText,
  shownState: rightsText,
  shownCountry: rightsText,
  shownCountryCode: rightsText,
});

const none = z.union([z.undefined(), z.null(), z.strictObject({})]);

// ---- creative: voices, speech, lipsync, generation, editing, face swap --------------------
// Shapes only; the per-model rules are checked in main by service/validate.ts so the message
// names the rule (and the preview can report it instead of throwing).
const mediaRef = z.union([z.strictObject({ assetId: id }), z.strictObject({ path })]);
const shortText = z.string().min(1).max(200);
const rgbColor = z.strictObject({ rgb: z.tuple([z.number().int().min(0).max(255), z.number().int().min(0).max(255), z.number().int().min(0).max(255)]), weight: z.number().min(0).max(1000).optional() });
const speechRequest = z.strictObject({
  voice: shortText,
  text: z.string().min(1).max(100_000),
  title: z.string().max(500).optional(),
  endpoint: z.enum(['tts', 'ttsCreateJson']).optional(),
});
const generateRequest = z.strictObject({
  prompt: z.string().min(1).max(20_000),
  model: shortText.optional(),
  quality: shortText.optional(),
  imageSize: shortText.optional(),
  resolution: shortText.optional(),
  style: shortText.optional(),
  seed: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
  loraUrl: z.string().min(1).max(4096).optional(),
  controls: z.strictObject({ colors: z.array(rgbColor).max(100).optional(), backgroundColor: rgbColor.optional() }).optional(),
  styleImage: mediaRef.optional(),
});
const editRequest = z.strictObject({
  prompt: z.string().min(1).max(20_000),
  sources: z.array(mediaRef).min(1).max(100),
  sourceRoles: z.array(z.enum(['object', 'character', 'style'])).max(100).optional(),
  model: shortText.optional(),
  quality: shortText.optional(),
  resolution: shortText.optional(),
  imageSize: shortText.optional(),
  megapixelRatio: z.number().min(0).max(100).optional(),
  seed: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
});
const creativeKind = z.enum(['speech', 'videoLipsync', 'imageLipsync', 'generate', 'edit', 'faceSwap', 'vectorize']);
const creativeSchemas = {
  listVoices: z.strictObject({
    lang: z.string().max(50).optional(), gender: z.string().max(50).optional(), age: z.string().max(50).optional(), text: z.string().max(200).optional(), refresh: z.boolean().optional(),
  }),
  previewSpeech: speechRequest,
  startSpeech: speechRequest,
  startLipsync: z.strictObject({ mode: z.enum(['video', 'image']), audio: mediaRef, video: mediaRef.optional(), image: mediaRef.optional(), resolution: z.enum(['360p', '480p', '720p']).optional() }),
  modelRules: none,
  previewImageJob: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('generate'), request: generateRequest }), z.strictObject({ kind: z.literal('edit'), request: editRequest })]),
  startGenerate: generateRequest,
  startEdit: editRequest,
  startFaceSwap: z.strictObject({ source: mediaRef, target: mediaRef, useGfpgan: z.boolean().optional() }),
  startVectorize: z.strictObject({ source: mediaRef }),
  listCreativeTasks: z.strictObject({ limit: z.number().int().min(1).max(10_000).optional(), kind: creativeKind.optional(), active: z.boolean().optional() }),
  getCreativeTask: z.strictObject({ id }),
  creationOf: z.strictObject({ assetId: id }),
  cancelCreativeTask: z.strictObject({ id }),
  keepWaitingCreativeTask: z.strictObject({ id }),
  retryCreativeTask: z.strictObject({ id, confirmBilledAgain: z.literal(true) }),
  refetchResult: z.strictObject({ id }),
  creativeSettings: none,
  setCreativeSettings: z.strictObject({
    settings: z.strictObject({ textLimit: z.number().int().min(20).max(1_000_000).nullable().optional(), creationsDir: path.optional() }),
  }),
};

export const schemas = {
  appInfo: none,
  systemStatus: none,
  systemSettings: none,
  setSystemSettings: z.strictObject({
    backupKeep: z.number().int().min(1).max(365).optional(),
    toolPaths: z.strictObject({ ffmpeg: path.nullable().optional(), ffprobe: path.nullable().optional() }).optional(),
  }),
  listBackups: none,
  backupNow: none,
  restoreBackup: z.strictObject({ path }),
  reportError: z.strictObject({ message: z.string().max(4000), stack: z.string().max(20_000).optional(), where: z.string().max(200).optional() }),
  getViewState: none,
  // View state is small: a few dozen keys of plain JSON (checked by size, not by shape).
  setViewState: z.strictObject({ state: z.record(z.string().max(100), z.unknown()).refine((s) => JSON.stringify(s).length <= 64_000, 'view state too large') }),
  listFolders: none,
  addFolder: z.strictObject({ path }),
  removeFolder: z.strictObject({ id }),
  relinkFolder: z.strictObject({ id, path }),
  rescan: z.strictObject({ folderId: id.optional() }),
  cancelScan: none,
  pickFolder: none,
  search: z.strictObject({ query: searchQuery, page }),
  searchIds: z.strictObject({ query: searchQuery }),
  getAsset: z.strictObject({ id }),
  getFullImage: z.strictObject({ id }),
  getHistogram: z.strictObject({ id }),
  studioStatus: none,
  studioProbe: z.strictObject({ url: studioAddress }),
  studioJoin: z.strictObject({ url: studioAddress, user: z.string().min(1).max(64), password: z.string().min(1).max(1000), fingerprint: z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, 'must be a SHA-256 fingerprint') }),
  studioLeave: none,
  studioSyncNow: none,
  studioMapVolume: z.strictObject({ volume: z.string().min(1).max(200), path }),
  studioSetSubset: z.strictObject({ subset: z.strictObject({ folders: z.array(path).max(1000), collections: z.array(z.string().min(1).max(500)).max(1000) }).nullable() }),
  assetHistory: z.strictObject({ id }),
  similarGroups: z.strictObject({ ids: ids.optional() }),
  setVisibleAssets: z.strictObject({ ids: z.array(id).max(5000) }),
  cellStates: z.strictObject({ ids: z.array(id).min(1).max(2000) }),
  facets: none,
  editKeywords: z.strictObject({ ids, add: keywords.optional(), remove: keywords.optional() }),
  removeKeywordsEach: z.strictObject({ removals: z.array(z.strictObject({ id, remove: keywords })).min(1).max(100_000) }),
  setKeywords: z.strictObject({ id, keywords }),
  setCaption: z.strictObject({ ids, caption: text.nullable() }),
  setTitle: z.strictObject({ ids, title: z.string().max(2000).nullable() }),
  setRating: z.strictObject({ ids, rating: z.number().int().min(0).max(5) }),
  setLabel: z.strictObject({ ids, label: z.enum(['red', 'yellow', 'green', 'blue', 'purple']).nullable() }),
  setRightsFields: z.strictObject({ ids, fields: rightsFields }),
  listPresets: none,
  savePreset: z.strictObject({ name: z.string().min(1).max(200), fields: rightsFields, keywords: z.array(z.string().max(500)).max(1000).optional() }),
  deletePreset: z.strictObject({ id }),
  applyPreset: z.strictObject({ id, ids }),
  undo: none,
  listCollections: none,
  createCollection: z.strictObject({ name: collectionName, kind: z.enum(['manual', 'smart', 'set']), parentId: id.nullable().optional(), query: smartQuery.optional() }),
  updateCollection: z.strictObject({ id, name: collectionName.optional(), parentId: id.nullable().optional(), query: smartQuery.optional() }),
  deleteCollection: z.strictObject({ id }),
  addToCollection: z.strictObject({ id, ids }),
  removeFromCollection: z.strictObject({ id, ids }),
  reorderCollection: z.strictObject({ id, ids, beforeId: id.nullable() }),
  listKeywords: z.strictObject({ prefix: z.string().max(500).optional(), limit: z.number().int().min(1).max(10_000).optional(), ids: ids.optional() }),

  serviceSettings: none,
  setServiceUrl: z.strictObject({ baseUrl: z.string().min(1).max(2048).nullable() }),
  setCredentials: z.strictObject({ clientId: z.string().min(1).max(512), clientSecret: z.string().min(1).max(4096) }),
  removeCredentials: none,
  testConnection: none,
  queueStatus: none,
  listBatches: z.strictObject({ limit: z.number().int().min(1).max(10_000).optional() }),
  listJobs: z.strictObject({
    batchId: z.string().min(1).max(200).optional(),
    states: z.array(jobState).max(7).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
    offset: z.number().int().min(0).max(100_000_000).optional(),
  }),
  controlQueue: z.strictObject({
    action: z.enum(['pause', 'resume', 'cancel', 'retry']),
    target: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('job'), id }),
      z.strictObject({ type: z.literal('batch'), id: z.string().min(1).max(200) }),
      z.strictObject({ type: z.literal('lane'), name: z.string().min(1).max(100) }),
      z.strictObject({ type: z.literal('all') }),
    ]),
  }),
  getCaps: none,
  setCaps: z.strictObject({
    caps: z.strictObject({
      dailyCalls: count.nullable().optional(),
      monthlyCalls: count.nullable().optional(),
      pricePerCall: z.record(z.string().min(1).max(200), z.number().min(0).max(1_000_000)).optional(),
      dailySpend: z.number().min(0).max(1e12).nullable().optional(),
      monthlySpend: z.number().min(0).max(1e12).nullable().optional(),
      accountRatePerSecond: z.number().min(0).max(1000).nullable().optional(),
    }),
  }),

  previewKeywordRun: z.strictObject({ target, options: keywordRunOptions }),
  startKeywordRun: z.strictObject({ target, options: keywordRunOptions }),
  previewCaptionRun: z.strictObject({ target, options: captionRunOptions }),
  startCaptionRun: z.strictObject({ target, options: captionRunOptions }),
  listRuns: z.strictObject({ limit: z.number().int().min(1).max(10_000).optional(), assetId: id.optional() }),
  getAssetReview: z.strictObject({ assetId: id, runId: id.optional() }),
  acceptSuggestions: z.strictObject({ ids }),
  acceptAbove: z.strictObject({ assetIds: ids, minScore: score, runIds }),
  acceptKeyword: z.strictObject({ assetIds: ids, keyword, runIds }),
  rejectSuggestions: z.strictObject({ ids }),
  rejectPending: z.strictObject({ assetIds: ids, belowScore: score.optional(), keyword: keyword.optional(), runIds }),
  moveKeyword: z.strictObject({ assetId: id, from: z.number().int().min(0).max(10_000), to: z.number().int().min(0).max(10_000) }),
  editCaptionSuggestion: z.strictObject({ id, text: z.string().min(1).max(20_000) }),
  acceptCaptions: z.strictObject({ ids, as: z.enum(['caption', 'title']).optional() }),
  rejectCaptions: z.strictObject({ ids }),
  revertRun: z.strictObject({ runId: id }),
  getKeywordSettings: none,
  setKeywordSettings: z.strictObject({
    settings: z.strictObject({
      exclude: keywordList.optional(),
      required: keywordList.optional(),
      casing: z.enum(['byLanguage', 'lower', 'asSent']).optional(),
      exportSynonyms: z.boolean().optional(),
      limit: z
        .strictObject({
          preset: z.enum(['default', 'adobe', 'shutterstock', 'custom']).optional(),
          min: z.number().int().min(0).max(1000).optional(),
          max: z.number().int().min(1).max(1000).optional(),
        })
        .optional(),
    }),
  }),
  checkKeywords: z.strictObject({ keywords: keywordList }),
  checkTextLimits: z.strictObject({ title: text.nullable().optional(), caption: text.nullable().optional(), agency: agency.optional() }),
  listLibraryKeywords: none,
  renameKeyword: z.strictObject({ from: keyword, to: keyword, children: z.boolean().optional() }),
  mergeKeywords: z.strictObject({ from: z.array(keyword).min(1).max(1000), into: keyword, children: z.boolean().optional() }),
  deleteKeyword: z.strictObject({ name: keyword, children: z.boolean().optional() }),
  importKeywordList: z.strictObject({ text: z.string().max(50_000_000) }),
  exportKeywordList: z.strictObject({ path }),
  previewWrite: z.strictObject({ ids }),
  writeMetadata: z.strictObject({ ids }),
  syncState: z.strictObject({ id }),
  exportCsv: z.strictObject({ ids, agency: agencyId, path: path.optional(), force: z.boolean().optional() }),

  // agencies: profiles and the check
  listAgencies: none,
  checkForAgency: z.strictObject({ ids, agency: agencyId }),
  getStockFields: z.strictObject({ id }),
  agencyAccount: z.strictObject({ agency: agencyId }),
  setAgencyAccount: z.strictObject({ agency: agencyId, url: z.string().min(1).max(2000), user: z.string().min(1).max(500), password: z.string().max(2000) }),
  removeAgencyAccount: z.strictObject({ agency: agencyId }),
  forgetAgencyHostKey: z.strictObject({ agency: agencyId, host: z.string().min(1).max(300), port: z.number().int().min(1).max(65535) }),
  uploadToAgency: z.strictObject({ ids, agency: agencyId, force: z.boolean().optional() }),
  setStockFields: z.strictObject({
    ids,
    editorial: z.boolean().optional(),
    releases: z.array(z.string().min(1).max(200)).max(100).optional(),
    categories: z.strictObject({ agency: agencyId, values: z.array(z.string().min(1).max(100)).max(5) }).optional(),
  }),
  pickSavePath: z.strictObject({ defaultName: z.string().min(1).max(255).refine((n) => !/[\\/\0]/.test(n), 'must be a file name, not a path') }),

  // analysis: quality, faces, colours, flags
  previewAnalysisRun: z.strictObject({ target, options: analysisRunOptions }),
  startAnalysisRun: z.strictObject({ target, options: analysisRunOptions }),
  getAssetAnalysis: z.strictObject({ id }),
  qualityHistogram: z.strictObject({ query: searchQuery, field: histogramField, bins: z.number().int().min(1).max(1000).optional() }),
  rejectBelow: z.strictObject({ target, field: histogramField, threshold: score }),
  setFlag: z.strictObject({ ids, flag: z.enum(['pick', 'reject']).nullable() }),

  // batch rename (issue 16)
  previewRename: z.strictObject({ assetIds: ids, template: z.string().max(1000), start: z.number().int().min(0).max(1e12).optional() }),
  findSimilar: z.strictObject({ assetId: id, limit: z.number().int().min(1).max(1000).optional() }),
  renameAssets: z.strictObject({ assetIds: ids, template: z.string().max(1000), start: z.number().int().min(0).max(1e12).optional() }),
  ...creativeSchemas,
} satisfies Record<ApiMethod, z.ZodType>;
