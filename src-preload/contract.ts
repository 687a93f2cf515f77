// The one contract between the renderer and main: every Api method, every event, and the
// DTOs they carry. Types only — both sides import it with `import type`.

export type AssetKind = 'image' | 'video' | 'audio';

/** 'quality' and 'ugcQuality' sort by the measured score; assets not measured come last in either direction. */
/** 'colorMatch': most of the colour of the `color` filter first (by share of the picture); without one, by date. */
export type SortKey = 'takenAt' | 'name' | 'addedAt' | 'size' | 'quality' | 'ugcQuality' | 'colorMatch';

export interface SearchQuery {
  /** Full text over file name, keywords, caption and title (prefix match per word). */
  text?: string;
  kinds?: AssetKind[];
  folderId?: number;
  /** Every one of these keywords must be present (case-insensitive). */
  keywords?: string[];
  /** None of these keywords may be present. */
  withoutKeywords?: string[];
  /** Only assets that have no keyword at all. */
  noKeywords?: boolean;
  /** Minimum star rating, 0..5. */
  minRating?: number;
  /** Inclusive bounds on the capture date, 'YYYY-MM-DD' (compared as local wall-clock dates). */
  takenFrom?: string;
  takenTo?: string;
  /** Camera model or make, exact match as shown in the facets. */
  camera?: string;
  /** Only assets that have at least one exact duplicate (same content hash). */
  duplicatesOnly?: boolean;
  /** Only assets with a recorded error (corrupt, unreadable, unsupported). */
  errorsOnly?: boolean;
  // -- analysis filters (quality, faces, colours, flags); each needs the measurement made --
  /** Stock quality score bounds, 0..1, inclusive. */
  minQuality?: number;
  maxQuality?: number;
  /** UGC quality classes 1..5 (any of them). */
  ugcClasses?: number[];
  /** true: at least one face found; false: faces looked for and none found. */
  hasFaces?: boolean;
  minFaces?: number;
  maxFaces?: number;
  /** At least one face estimated under 18. */
  child?: boolean;
  /** Some face's estimated age lies in [ageMin, ageMax]. */
  ageMin?: number;
  ageMax?: number;
  /** A model release is likely needed (faces present); false: faces looked for, none found. */
  releaseNeeded?: boolean;
  /** Lightroom-style flag. */
  flag?: 'pick' | 'reject' | 'unflagged';
  /** Colour by perceptual distance (CIE76 in L*a*b*) to the measured palette. */
  color?: ColorQuery;
  sort?: SortKey;
  order?: 'asc' | 'desc';
}

export interface Page {
  offset: number;
  limit: number;
}

/** What a grid cell needs. */
export interface AssetSummary {
  id: number;
  name: string;
  kind: AssetKind;
  format: string;
  width: number | null;
  height: number | null;
  durationS: number | null;
  takenAt: string | null;
  rating: number;
  /** Media token for the grid thumbnail; turn into a URL with the renderer's mediaUrl(). Null when no thumbnail could be made. */
  thumb: string | null;
  /** Number of other files in the same RAW+JPEG stack (0 when not stacked). */
  stackCount: number;
  hasError: boolean;
  folderOnline: boolean;
  keywordCount: number;
}

export interface AssetError {
  stage: string;
  reason: string;
  at: number;
}

/** Stock and rights fields (IPTC Core / XMP), beside keywords, caption and title. */
export interface RightsFields {
  headline?: string | null;
  creator?: string | null;
  copyright?: string | null;
  credit?: string | null;
  city?: string | null;
  country?: string | null;
}

export interface MetadataPreset {
  id: number;
  name: string;
  fields: RightsFields;
  updatedAt: number;
}

export interface AssetDetail extends AssetSummary {
  path: string;
  folderId: number;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  orientation: number | null;
  cameraMake: string | null;
  cameraModel: string | null;
  lens: string | null;
  gps: { lat: number; lon: number } | null;
  colorLabel: string | null;
  videoCodec: string | null;
  audioCodec: string | null;
  keywords: string[];
  caption: string | null;
  title: string | null;
  rights: Required<RightsFields>;
  addedAt: number;
  /** Media token for a large preview (JPEG), or the original when the browser can show it. */
  preview: string | null;
  /** Media token of the original file (for audio/video playback). */
  original: string | null;
  errors: AssetError[];
  /** Other members of the RAW+JPEG stack. */
  stack: { id: number; name: string; format: string }[];
  /** Other assets with the same content. */
  duplicates: { id: number; path: string }[];
}

export interface SearchResult {
  total: number;
  offset: number;
  items: AssetSummary[];
}

export interface FolderInfo {
  id: number;
  path: string;
  online: boolean;
  assetCount: number;
  errorCount: number;
  addedAt: number;
  lastScanAt: number | null;
  scanning: boolean;
}

export interface KeywordCount {
  name: string;
  count: number;
}

export interface Facets {
  cameras: { name: string; count: number }[];
  kinds: { kind: AssetKind; count: number }[];
  total: number;
}

export interface ScanSummary {
  added: number;
  updated: number;
  removed: number;
  moved: number;
  errors: { path: string; reason: string }[];
  cancelled: boolean;
}

export interface ScanProgress {
  folderId: number;
  folderPath: string;
  phase: 'walking' | 'indexing' | 'done' | 'cancelled';
  found: number;
  done: number;
  errors: number;
  filesPerSec: number;
}

export interface AppInfo {
  version: string;
  dataDir: string;
  /** True when running inside Electron (native dialogs available). */
  native: boolean;
}

/** A human-readable error: `kind` says which, `message` says what happened and what to do. */
export interface ApiErrorShape {
  kind: 'validation' | 'not_found' | 'conflict' | 'io' | 'internal';
  message: string;
  field?: string;
}

// ---- the cloud service, credentials and the job queue ------------------------------------

export interface CredentialInfo {
  /** Where the credentials in use come from. */
  source: 'env' | 'keychain' | 'session' | 'none';
  configured: boolean;
  /** The Client ID is an identifier, not a secret: shown so the user sees which pair is set. */
  clientId: string | null;
  keychain: 'available' | 'unavailable' | 'not_used';
  /** Why the keychain is not used, when it is not (shown to the user). */
  reason?: string;
}

export interface ServiceSettings {
  baseUrl: string;
  defaultBaseUrl: string;
  credentials: CredentialInfo;
}

export interface ConnectionVerdict {
  ok: boolean;
  /** 'ok' or the ServiceError kind that stopped it (credentials, offline, quota, service, ...). */
  kind: string;
  message: string;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'unknown' | 'paused';

export interface JobView {
  id: number;
  batchId: string | null;
  kind: string;
  endpoint: string;
  lane: string;
  state: JobState;
  taskId: string | null;
  phase: string | null;
  fromCache: boolean;
  attempts: number;
  retryAfter: number | null;
  error: { kind: string; message: string } | null;
  result: unknown;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface BatchView {
  id: string;
  label: string;
  createdAt: number;
  paused: boolean;
  cancelled: boolean;
  total: number;
  cached: number;
  counts: Partial<Record<JobState, number>>;
}

/** Why the whole queue (or its billed part) is held. */
export type HoldReason = 'quota' | 'cap' | 'credentials' | 'offline' | 'user';

export interface QueueHold {
  reason: HoldReason;
  message: string;
  since: number;
  /** offline: when the next reachability check runs */
  nextCheckAt?: number;
}

export interface LaneView {
  name: string;
  /** Requests per second the lane keeps to (with a safety margin). */
  ratePerSecond: number;
  concurrency: number;
  running: number;
  queued: number;
  paused: boolean;
  state: 'idle' | 'running' | 'paused' | HoldReason;
  /** Starts in the last second (the current rate). */
  recentStarts: number;
}

export interface UsageSummary {
  day: string;
  month: string;
  today: number;
  thisMonth: number;
  byModelToday: Record<string, number>;
  byModelMonth: Record<string, number>;
}

export interface QueueStatus {
  hold: QueueHold | null;
  counts: Partial<Record<JobState, number>>;
  lanes: LaneView[];
  usage: UsageSummary;
}

export interface QueueCaps {
  /** Billed calls per local day, all models together. */
  dailyCalls?: number | null;
  monthlyCalls?: number | null;
  /** The user's price per call per billing key (the interface publishes no prices). */
  pricePerCall?: Record<string, number>;
  dailySpend?: number | null;
  monthlySpend?: number | null;
}

export interface BatchPreview {
  jobs: number;
  /** Calls that will be billed (cache hits and duplicates within the batch excluded). */
  billable: number;
  cached: number;
  duplicates: number;
  byModel: Record<string, number>;
  /** From the user's prices; null when a billed model has no price set. */
  estimatedCost: number | null;
  remaining: { today: number | null; thisMonth: number | null };
  fitsCaps: boolean;
  message: string;
}

export type QueueAction = 'pause' | 'resume' | 'cancel' | 'retry';
export type QueueTarget = { type: 'job'; id: number } | { type: 'batch'; id: string } | { type: 'lane'; name: string } | { type: 'all' };

// ---- keywording and captioning ----------------------------------------------------------

export type KeywordLang = 'en' | 'ru' | 'es' | 'fr' | 'de' | 'pt' | 'it';
export type CaptionLength = 'short' | 'normal' | 'long';

/** A selection, or every asset a search finds (RAW+JPEG stacks folded as the grid shows them). */
export type RunTarget = { assetIds: number[] } | { query: SearchQuery };

export interface KeywordRunOptions {
  /** 1..50; the service's default (about 12) when absent. */
  numKeywords?: number;
  /** 0..1: only keywords scoring at least this. */
  threshold?: number;
  /** Language of the keywords (images; the service keywords video in English only). Default 'en'. */
  lang?: KeywordLang;
  colors?: boolean;
  numColors?: number;
  /** Analyse assets already keyworded with these parameters again (a cached answer still costs nothing). */
  force?: boolean;
}

export interface CaptionRunOptions {
  length?: CaptionLength;
  force?: boolean;
}

export type SkipReason = 'already_done' | 'unsupported' | 'offline';

export interface SkippedAsset {
  assetId: number;
  reason: SkipReason;
  /** For already_done: the run whose suggestions are still there to review. */
  runId?: number;
  message: string;
}

export interface RunPreview extends BatchPreview {
  /** Assets in the selection or search. */
  assets: number;
  skipped: SkippedAsset[];
}

export interface RunStarted {
  runId: number;
  batchId: string;
  /** Jobs queued (cache hits are done at once). */
  jobs: number;
  skipped: SkippedAsset[];
}

export type RunKind = 'keywords' | 'caption';
export type RunStatus = 'running' | 'done' | 'reverted';

export interface RunView {
  id: number;
  kind: RunKind;
  params: KeywordRunOptions | CaptionRunOptions;
  lang: KeywordLang | null;
  createdAt: number;
  batchId: string;
  status: RunStatus;
  counts: { queued: number; done: number; failed: number; cancelled: number };
  /** Suggestions by state (keyword runs count keywords, caption runs captions). */
  suggestions: { pending: number; accepted: number; rejected: number };
}

export type SuggestionState = 'pending' | 'accepted' | 'rejected';

export interface SuggestionView {
  id: number;
  keyword: string;
  score: number;
  state: SuggestionState;
  lang: string;
  runId: number;
  /** Provenance: when the run was started and with which parameters. */
  createdAt: number;
  params: KeywordRunOptions;
  /** Already among the asset's keywords (accepted here, added by hand, or there before). */
  inAsset: boolean;
  /** On the user's exclude list: accepting it does nothing. */
  excluded: boolean;
}

export interface CaptionSuggestionView {
  id: number;
  text: string;
  /** What the service wrote (text may be the user's edit of it). */
  raw: string;
  length: CaptionLength;
  state: SuggestionState;
  acceptedAs: 'caption' | 'title' | null;
  runId: number;
  createdAt: number;
  /** Agency limits the text would break as a title or as a description. */
  warnings: TextCheck[];
}

export interface AssetReview {
  assetId: number;
  keywords: string[];
  caption: string | null;
  title: string | null;
  /** One per keyword (the best-scoring suggestion of it), strongest first. */
  suggestions: SuggestionView[];
  captions: CaptionSuggestionView[];
  check: KeywordCheck;
  textWarnings: TextCheck[];
  /** The asset's last run failed for this reason (the file could not be read, the service refused it). */
  errors: { runId: number; message: string }[];
}

export type AcceptSkipReason = 'excluded' | 'limit' | 'already_present';

export interface AcceptResult {
  /** Keywords added to assets. */
  added: number;
  /** Assets whose keywords changed. */
  assetIds: number[];
  skipped: { assetId: number; keyword: string; reason: AcceptSkipReason }[];
  /** Required keywords added alongside. */
  required: number;
}

export interface RevertResult {
  /** null when the run had nothing left to revert. */
  description: string | null;
  assetIds: number[];
  keywordsRemoved: number;
  captionsRestored: number;
}

export type LimitPreset = 'default' | 'adobe' | 'shutterstock' | 'custom';

export interface KeywordLimit {
  preset: LimitPreset;
  /** Fewest keywords an agency accepts (0: no minimum). */
  min: number;
  /** Most keywords kept; accepting never goes past it (strongest suggestions win). */
  max: number;
}

export interface KeywordSettings {
  /** Never accepted from a suggestion (case-insensitive). */
  exclude: string[];
  /** Added to every asset that accepts suggestions, when missing. */
  required: string[];
  limit: KeywordLimit;
  /** 'lower': a word new to the library is stored in lower case; 'asSent': as the service spelled it. */
  casing: 'lower' | 'asSent';
}

export type Agency = 'adobe' | 'shutterstock';

export interface KeywordCheck {
  count: number;
  min: number;
  max: number;
  preset: LimitPreset;
  ok: boolean;
  warnings: string[];
}

export interface TextCheck {
  field: 'title' | 'caption';
  length: number;
  max: number;
  agency: Agency;
  message: string;
}

export interface LibraryKeyword {
  name: string;
  count: number;
  /** The levels of a hierarchical keyword ('Animals|Cat' -> ['Animals', 'Cat']). */
  path: string[];
}

export interface VocabularyEditResult {
  /** null when nothing changed. */
  description: string | null;
  assetIds: number[];
}

// ---- writing metadata into files ---------------------------------------------------------

export type SyncStatus = 'in_sync' | 'unsaved' | 'written' | 'failed' | 'unknown';

export interface FieldChangeView {
  assetId: number;
  /** The file (or sidecar) that would change. */
  path: string;
  field: string;
  fileValue: unknown;
  libraryValue: unknown;
}

export interface WritePreview {
  changes: FieldChangeView[];
  /** Assets whose file could not be read (the write would fail the same way). */
  problems: { assetId: number; path: string | null; reason: string }[];
}

export interface WriteSummary {
  assetId: number;
  /** queued/cancelled: the batch was paused or cancelled before this file's turn (see Activity). */
  status: 'written' | 'in_sync' | 'failed' | 'queued' | 'cancelled';
  changedFields: string[];
  /** IPTC values that had to be shortened. */
  warnings: string[];
  error: string | null;
}

export interface SyncStateView {
  assetId: number;
  status: SyncStatus;
  error: string | null;
  unsavedFields: string[];
  conflicts: { field: string; fileValue: unknown; libraryValue: unknown }[];
  writtenAt: number | null;
}

// ---- analysis: quality, faces and colours ------------------------------------------------

export type AnalysisKind = 'quality' | 'qualityUgc' | 'faces' | 'colors';

export interface AnalysisRunOptions {
  kind: AnalysisKind;
  /** colors: how many colours the service returns (its default when absent). */
  numColors?: number;
  /** Measure again assets already measured with these settings (a cached answer still costs nothing). */
  force?: boolean;
}

export interface ColorQuery {
  /** '#RRGGBB' */
  hex: string;
  /** CIE76 ΔE in L*a*b*; default 25 (about "clearly the same hue family"). */
  maxDistance?: number;
  /** Share of the picture (0..1) the matching colours must cover together; default 0.25. */
  minShare?: number;
}

export interface MeasurementInfo {
  runId: number | null;
  params: Record<string, unknown>;
  measuredAt: number;
}

export type UgcClass = 1 | 2 | 3 | 4 | 5;

export interface QualityView extends MeasurementInfo {
  score: number;
}

export interface UgcQualityView extends MeasurementInfo {
  score: number;
  class: UgcClass;
  /** The interface's label: Very Bad, Poor, Normal, Good, Excellent. */
  label: string;
}

export interface FaceView {
  age: number;
  score: number;
  /** The service's age-range label, e.g. "Age - Child". */
  class: string;
  /** [x0, y0, x1, y1] as fractions 0..1 of the displayed (EXIF-rotated) picture. */
  bbox: [number, number, number, number];
}

export interface ColorSwatch {
  name: string;
  hex: string;
  rgb: [number, number, number];
  /** Share of the picture as the service gives it (0..100). */
  percentage: number;
}

export interface AssetAnalysis {
  assetId: number;
  quality: QualityView | null;
  ugc: UgcQualityView | null;
  /** null: faces not looked for yet. */
  faces: FaceView[] | null;
  facesMeasured: MeasurementInfo | null;
  colors: ColorSwatch[] | null;
  colorsMeasured: MeasurementInfo | null;
  /** null until faces were looked for. */
  releaseNeeded: boolean | null;
}

export type HistogramField = 'quality' | 'ugc';

export interface QualityHistogram {
  field: HistogramField;
  /** Equal-width bins over 0..1; the last includes 1. */
  bins: { from: number; to: number; count: number }[];
  measured: number;
  /** Assets of the view with no score of this kind. */
  unmeasured: number;
}

export type Flag = 'pick' | 'reject';

export interface FlagEditResult {
  /** What undo will say; null when nothing changed. */
  description: string | null;
  assetIds: number[];
}

export interface AnalysisApi {
  previewAnalysisRun(args: { target: RunTarget; options: AnalysisRunOptions }): Promise<RunPreview>;
  /** Queue the measurements; results land as the jobs end (also after a restart). */
  startAnalysisRun(args: { target: RunTarget; options: AnalysisRunOptions }): Promise<RunStarted>;
  getAssetAnalysis(args: { id: number }): Promise<AssetAnalysis>;
  /** Scores of the current view in equal-width bins (for the threshold slider). */
  qualityHistogram(args: { query: SearchQuery; field: HistogramField; bins?: number }): Promise<QualityHistogram>;
  /** Reject every measured asset of the target scoring below the threshold, as one undoable edit. */
  rejectBelow(args: { target: RunTarget; field: HistogramField; threshold: number }): Promise<FlagEditResult>;
  /** Pick, reject or unflag (null); one undoable edit. */
  setFlag(args: { ids: number[]; flag: Flag | null }): Promise<FlagEditResult>;
}

export interface Api extends AnalysisApi, SystemApi {
  appInfo(): Promise<AppInfo>;

  listFolders(): Promise<FolderInfo[]>;
  /** Add a folder to the library and start scanning it (returns once added). */
  addFolder(args: { path: string }): Promise<FolderInfo>;
  /** Forget a folder and its assets' catalogue entries; files are never touched. */
  removeFolder(args: { id: number }): Promise<void>;
  /** Point a (moved or renamed) folder at its new location, keeping everything. */
  relinkFolder(args: { id: number; path: string }): Promise<FolderInfo>;
  rescan(args: { folderId?: number }): Promise<void>;
  cancelScan(): Promise<void>;
  /** Ask the OS for a folder (native dialog); null when cancelled or unavailable. */
  pickFolder(): Promise<string | null>;

  search(args: { query: SearchQuery; page: Page }): Promise<SearchResult>;
  /** Every id matching a query, in order (for "select all matching"). */
  searchIds(args: { query: SearchQuery }): Promise<number[]>;
  getAsset(args: { id: number }): Promise<AssetDetail>;
  facets(): Promise<Facets>;

  /** Add and/or remove keywords on several assets; order of existing keywords is kept, new ones are appended. */
  editKeywords(args: { ids: number[]; add?: string[]; remove?: string[] }): Promise<void>;
  /** Replace one asset's keyword list, in this order. */
  setKeywords(args: { id: number; keywords: string[] }): Promise<void>;
  setCaption(args: { ids: number[]; caption: string | null }): Promise<void>;
  setTitle(args: { ids: number[]; title: string | null }): Promise<void>;
  setRating(args: { ids: number[]; rating: number }): Promise<void>;
  /** Headline, creator, copyright, credit, city, country on several assets (one undoable edit; null clears, absent keeps). */
  setRightsFields(args: { ids: number[]; fields: RightsFields }): Promise<void>;
  listPresets(): Promise<MetadataPreset[]>;
  /** Create or replace (by name) a named preset of rights fields. */
  savePreset(args: { name: string; fields: RightsFields }): Promise<MetadataPreset>;
  deletePreset(args: { id: number }): Promise<void>;
  /** Apply a preset to a selection in one step (undoable). */
  applyPreset(args: { id: number; ids: number[] }): Promise<void>;
  /** Undo the most recent edit (any of the above); returns a description, or null when nothing to undo. */
  undo(): Promise<string | null>;
  /** Library keywords with usage counts, most used first; optional prefix for autocomplete. */
  listKeywords(args: { prefix?: string; limit?: number }): Promise<KeywordCount[]>;

  /** Service address and where the credentials come from (never the secret). */
  serviceSettings(): Promise<ServiceSettings>;
  /** Set the service address; null restores the default. */
  setServiceUrl(args: { baseUrl: string | null }): Promise<ServiceSettings>;
  /** Store the key pair in the OS keychain (or for this session when none works). The secret never comes back. */
  setCredentials(args: { clientId: string; clientSecret: string }): Promise<CredentialInfo>;
  removeCredentials(): Promise<CredentialInfo>;
  /** A free call that checks the address and the credentials, with a verdict a person understands. */
  testConnection(): Promise<ConnectionVerdict>;
  queueStatus(): Promise<QueueStatus>;
  listBatches(args: { limit?: number }): Promise<BatchView[]>;
  listJobs(args: { batchId?: string; states?: JobState[]; limit?: number; offset?: number }): Promise<JobView[]>;
  /** Pause, resume, cancel or retry a job, a batch, a lane or everything. */
  controlQueue(args: { action: QueueAction; target: QueueTarget }): Promise<QueueStatus>;
  getCaps(): Promise<QueueCaps>;
  setCaps(args: { caps: QueueCaps }): Promise<QueueCaps>;

  /** How many billable calls a keyword run would make (cache hits and done assets excluded), and its cost under the caps. */
  previewKeywordRun(args: { target: RunTarget; options: KeywordRunOptions }): Promise<RunPreview>;
  startKeywordRun(args: { target: RunTarget; options: KeywordRunOptions }): Promise<RunStarted>;
  previewCaptionRun(args: { target: RunTarget; options: CaptionRunOptions }): Promise<RunPreview>;
  startCaptionRun(args: { target: RunTarget; options: CaptionRunOptions }): Promise<RunStarted>;
  listRuns(args: { limit?: number; assetId?: number }): Promise<RunView[]>;
  getAssetReview(args: { assetId: number; runId?: number }): Promise<AssetReview>;
  acceptSuggestions(args: { ids: number[] }): Promise<AcceptResult>;
  acceptAbove(args: { assetIds: number[]; minScore: number; runIds?: number[] }): Promise<AcceptResult>;
  acceptKeyword(args: { assetIds: number[]; keyword: string; runIds?: number[] }): Promise<AcceptResult>;
  rejectSuggestions(args: { ids: number[] }): Promise<number>;
  rejectPending(args: { assetIds: number[]; belowScore?: number; keyword?: string; runIds?: number[] }): Promise<number>;
  /** Move one keyword of an asset to another position; returns the new order. */
  moveKeyword(args: { assetId: number; from: number; to: number }): Promise<string[]>;
  editCaptionSuggestion(args: { id: number; text: string }): Promise<void>;
  acceptCaptions(args: { ids: number[]; as?: 'caption' | 'title' }): Promise<number[]>;
  rejectCaptions(args: { ids: number[] }): Promise<number>;
  /** Undo exactly what one AI run added, keeping every unrelated edit. */
  revertRun(args: { runId: number }): Promise<RevertResult>;
  getKeywordSettings(): Promise<KeywordSettings>;
  setKeywordSettings(args: { settings: Partial<Omit<KeywordSettings, 'limit'>> & { limit?: Partial<KeywordLimit> } }): Promise<KeywordSettings>;
  checkKeywords(args: { keywords: string[] }): Promise<KeywordCheck>;
  checkTextLimits(args: { title?: string | null; caption?: string | null; agency?: Agency }): Promise<TextCheck[]>;
  listLibraryKeywords(): Promise<LibraryKeyword[]>;
  renameKeyword(args: { from: string; to: string; children?: boolean }): Promise<VocabularyEditResult>;
  mergeKeywords(args: { from: string[]; into: string; children?: boolean }): Promise<VocabularyEditResult>;
  deleteKeyword(args: { name: string; children?: boolean }): Promise<VocabularyEditResult>;

  /** Per field, what writing these assets into their files would change. Reads only. */
  previewWrite(args: { ids: number[] }): Promise<WritePreview>;
  /** Write keywords, caption, title and rating into the files (safely, minimally, verified). */
  writeMetadata(args: { ids: number[] }): Promise<WriteSummary[]>;
  syncState(args: { id: number }): Promise<SyncStateView>;
  /** A stock agency CSV for these assets, written to `path` (a save dialog's answer) or returned as text. */
  exportCsv(args: { ids: number[]; agency: Agency; path?: string }): Promise<{ csv: string; rows: number; warnings: string[] }>;
  /** Ask the OS where to save a file (native dialog); null when cancelled or unavailable. */
  pickSavePath(args: { defaultName: string }): Promise<string | null>;
}

export type ApiMethod = keyof Api;

export interface ApiEvents {
  scanProgress: ScanProgress;
  /** Something in the catalogue changed; views re-query. */
  libraryChanged: { reason: 'scan' | 'edit' | 'folders' | 'watch'; assetIds?: number[] };
  foldersChanged: Record<string, never>;
  queueJob: JobView;
  queueBatch: BatchView;
  queueLane: LaneView;
  queueStatus: QueueStatus;
  aiRun: RunView;
  suggestionsChanged: { runId: number | null; assetIds: number[] };
}

export type ApiEventName = keyof ApiEvents;

/** What a call returns across the boundary: never a thrown Error object, always this envelope. */
export type ApiEnvelope<T> = { ok: true; value: T } | { ok: false; error: ApiErrorShape };

/** What preload exposes as `window.api`. */
export type ExposedApi = Api & {
  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void;
  /** The base prefix for media tokens (e.g. 'tsm://app/'). */
  mediaBase: string;
  /** The path of a dropped file or folder (Electron only). */
  pathForFile?: (file: File) => string;
};

// ---- creative: voices, speech, lipsync, image generation and editing, face swap ----------
// (issue 6; main side in src-main/creative/. These declarations merge into Api and ApiEvents.)

export interface VoiceView {
  /** the `voice` parameter of text-to-speech */
  apiName: string;
  /** as the service gives it (three-letter codes such as 'eng') */
  language: string;
  gender: string;
  age: string;
}

export interface VoiceList {
  voices: VoiceView[];
  /** when the cached list was fetched from the service (ms); null = never */
  fetchedAt: number | null;
  /** every language of the cached list, for a filter menu */
  languages: string[];
}

/** A source for lipsync, editing or face swap: a library asset or an absolute path on disk. */
export type MediaRef = { assetId: number } | { path: string };

export type CreativeKind = 'speech' | 'videoLipsync' | 'imageLipsync' | 'generate' | 'edit' | 'faceSwap';

/**
 * waiting: in Tagsmith's queue (one at a time per account for speech, lipsync, face swap);
 * pending/started: at the service; downloading: the result is being fetched and indexed;
 * done: in the library; download_failed: the service finished but the file could not be
 * fetched (refetchResult, no new charge); unknown: the request left but its answer was lost.
 */
export type CreativeStatus = 'waiting' | 'pending' | 'started' | 'downloading' | 'done' | 'failed' | 'cancelled' | 'unknown' | 'download_failed';

export interface CreativePartView {
  part: number;
  jobId: number | null;
  remoteTaskId: string | null;
  remoteStatus: string | null;
  queue: number | null;
}

export interface CreativeTaskView {
  id: number;
  kind: CreativeKind;
  /** the endpoint name of the service table (tts, imageGenerate, ...) */
  endpoint: string;
  status: CreativeStatus;
  /** the parameters as sent (media as {assetId}/{path}; no secrets) */
  params: Record<string, unknown>;
  sourceAssetIds: number[];
  parts: CreativePartView[];
  /** position in the queue: Tagsmith's own while waiting, the service's once sent; 0 = being processed */
  queue: number | null;
  /** as the service reports it (its unit is not documented; the simulator and observed answers use seconds) */
  eta: number | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  elapsedMs: number | null;
  resultUrl: string | null;
  resultPath: string | null;
  resultAssetId: number | null;
  error: string | null;
  /** the task this one re-ran (retry of a failure, billed again) */
  retryOf: number | null;
  canCancel: boolean;
  /** a FAILURE (or lost answer) may be re-run, billed again, only with confirmBilledAgain */
  canRetry: boolean;
  canRefetch: boolean;
}

export interface SpeechRequest {
  voice: string;
  text: string;
  title?: string;
  /** 'tts' (interface /v1/tts, falling back to /v1/tts/create) or the vendor's JSON /v1/tts_create */
  endpoint?: 'tts' | 'ttsCreateJson';
}

export interface SpeechPreview {
  /** billed tasks this text takes (1 unless a length limit splits it) */
  billedTasks: number;
  partLengths: number[];
  limit: number | null;
  message: string;
}

export interface LipsyncRequest {
  mode: 'video' | 'image';
  audio: MediaRef;
  video?: MediaRef;
  image?: MediaRef;
  resolution?: '360p' | '480p' | '720p';
}

export interface RgbColor {
  rgb: [number, number, number];
  weight?: number;
}

export interface GenerateRequest {
  prompt: string;
  model?: string;
  quality?: string;
  imageSize?: string;
  resolution?: string;
  style?: string;
  seed?: number;
  loraUrl?: string;
  controls?: { colors?: RgbColor[]; backgroundColor?: RgbColor };
  /** the source of flux's 'transfer' style */
  styleImage?: MediaRef;
}

export interface EditRequest {
  prompt: string;
  sources: MediaRef[];
  model?: string;
  quality?: string;
  resolution?: string;
  imageSize?: string;
  megapixelRatio?: number;
  seed?: number;
}

export type ImageJobArgs = { kind: 'generate'; request: GenerateRequest } | { kind: 'edit'; request: EditRequest };

export interface ImageJobPreview {
  ok: boolean;
  model: string;
  /** the rule the request breaks, named by its wire field */
  error: { field: string | null; message: string } | null;
  billedTasks: number;
  /** e.g. GPT image models: 0.02 dollars per source image on top of the output */
  costNotes: string[];
  notes: string[];
}

export interface ModelRuleView {
  model: string;
  /** null: the model takes no resolution choice */
  resolutions: string[] | null;
  defaultResolution: string | null;
  /** null: the model rejects `quality` */
  qualities: string[] | null;
  defaultQuality: string | null;
  /** '3k' only with image_size 'square' */
  squareOnly3k: boolean;
  /** returns SVG; takes controls; ignores resolution and style */
  vector: boolean;
  styles: string[] | null;
  /** styles that need a source image (flux 'transfer') */
  stylesNeedingImage: string[];
  /** editing: most source images */
  maxImages: number | null;
  /** editing: dollars per source image (GPT image models) */
  costPerSourceImage: number | null;
}

export interface ModelRules {
  generate: ModelRuleView[];
  edit: ModelRuleView[];
  editAliases: Record<string, string>;
  defaultGenerateModel: string;
  defaultEditModel: string;
  imageSizes: string[];
  maxControlColors: number;
  megapixelRatio: { min: number; max: number };
  lipsyncResolutions: string[];
  /** file extensions the lipsync endpoints accept */
  lipsyncAudio: string[];
  lipsyncVideo: string[];
  lipsyncImage: string[];
  /** the interface's quality advice for lipsync inputs */
  lipsyncAdvice: string[];
  /** what the service leaves unspecified, to show as such */
  unspecified: string[];
}

export interface FaceSwapRequest {
  /** the donor face */
  source: MediaRef;
  /** the image that receives it */
  target: MediaRef;
  useGfpgan?: boolean;
}

export interface CreativeSettings {
  /** split speech text above this many characters into several billed tasks; null = no limit */
  textLimit: number | null;
  /** where results are saved; a library folder */
  creationsDir: string;
}

export interface Api {
  /** The TTS voices (free; cached; refresh fetches again), filtered. */
  listVoices(args: { lang?: string; gender?: string; age?: string; text?: string; refresh?: boolean }): Promise<VoiceList>;
  previewSpeech(args: SpeechRequest): Promise<SpeechPreview>;
  startSpeech(args: SpeechRequest): Promise<CreativeTaskView>;
  startLipsync(args: LipsyncRequest): Promise<CreativeTaskView>;
  /** Per model: what the generation and editing forms may offer. */
  modelRules(): Promise<ModelRules>;
  previewImageJob(args: ImageJobArgs): Promise<ImageJobPreview>;
  startGenerate(args: GenerateRequest): Promise<CreativeTaskView>;
  startEdit(args: EditRequest): Promise<CreativeTaskView>;
  startFaceSwap(args: FaceSwapRequest): Promise<CreativeTaskView>;
  listCreativeTasks(args: { limit?: number; kind?: CreativeKind; active?: boolean }): Promise<CreativeTaskView[]>;
  getCreativeTask(args: { id: number }): Promise<CreativeTaskView>;
  /** The creative task that made this asset, or null. */
  creationOf(args: { assetId: number }): Promise<CreativeTaskView | null>;
  cancelCreativeTask(args: { id: number }): Promise<CreativeTaskView>;
  /** Run a failed task again as a new task: billed again, so only with confirmBilledAgain. */
  retryCreativeTask(args: { id: number; confirmBilledAgain: true }): Promise<CreativeTaskView>;
  /** Fetch a finished task's result again (no new task, no charge). */
  refetchResult(args: { id: number }): Promise<CreativeTaskView>;
  creativeSettings(): Promise<CreativeSettings>;
  setCreativeSettings(args: { settings: Partial<CreativeSettings> }): Promise<CreativeSettings>;
}

export interface ApiEvents {
  creativeTask: CreativeTaskView;
}

// ---- system: tools, library health, backups, view state -------------------------------

export type ToolName = 'ffmpeg' | 'ffprobe' | 'exiftool' | 'perl';

export interface ToolStatus {
  /** The executable's name. */
  name: ToolName;
  ok: boolean;
  /** The version string the tool reports; null when it is missing or does not run. */
  version: string | null;
  path: string | null;
  /** Where it came from: a path set in Settings, TAGSMITH_FFMPEG/TAGSMITH_FFPROBE, the copy shipped with the app, or PATH. */
  source: 'setting' | 'env' | 'bundled' | 'path' | null;
  /** What does not work without it. */
  impact: string;
}

/** `tagsmith doctor --json` and Settings › System. */
export interface SystemReport {
  tools: ToolStatus[];
  library: { path: string; sizeBytes: number; assets: number; integrity: string };
  service: { url: string; credentials: 'keychain' | 'env' | 'none' };
}

export interface SystemApi {
  /** Every outside tool (found or not, version, where from, impact), the catalogue's health, the service. */
  systemStatus(): Promise<SystemReport>;
}
