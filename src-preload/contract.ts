// The one contract between the renderer and main: every Api method, every event, and the
// DTOs they carry. Types only — both sides import it with `import type`.

export type AssetKind = 'image' | 'video' | 'audio';

export type SortKey = 'takenAt' | 'name' | 'addedAt' | 'size';

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

export interface Api {
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
