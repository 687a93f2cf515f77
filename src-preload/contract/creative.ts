// Creative: voices, speech, lipsync, image generation and editing, face swap (main side in src-main/creative/).
// Types only; contract.ts re-exports every one.

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

/** faceSwap covers both face swaps: endpoint 'faceSwap' (image target) or 'videoFaceSwap' (video target). */
export type CreativeKind = 'speech' | 'videoLipsync' | 'imageLipsync' | 'generate' | 'edit' | 'faceSwap' | 'vectorize';

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
  /**
   * Something the user should know while the task runs or after it ended: 'slow' (past its
   * deadline from the interface's typical times: cancel or keep waiting), 'unknown_state' (the
   * service reports a status outside PENDING/STARTED/SUCCESS/FAILURE/REVOKED), 'cancel_unconfirmed'
   * (the cancel did not reach the service: it may still run and bill the task), 'unreadable'
   * (the service accepted the task but its answer could not be read: fetch again by task id, never
   * a new create), 'not_cancellable' (the service answered 409 to the cancel: the task finishes and is paid).
   */
  attention: { kind: 'slow' | 'unknown_state' | 'cancel_unconfirmed' | 'unreadable' | 'not_cancellable'; message: string } | null;
  /** when the task counts as taking unusually long (ms); null before it reached the service */
  deadlineAt: number | null;
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
  /**
   * Gemini models: what each source stands for, in the order of `sources` (default 'object');
   * checked against the model's per-role caps (ModelRuleView.referenceCaps).
   */
  sourceRoles?: ('object' | 'character' | 'style')[];
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
  /** editing with Gemini models: the most references per role (a role missing is not allowed); null = no roles */
  referenceCaps: { object?: number; character?: number; style?: number } | null;
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
  /** the donor face (an image) */
  source: MediaRef;
  /** the image that receives it, or a video (video face swap, the vendor's /v1/videoswap) */
  target: MediaRef;
  useGfpgan?: boolean;
}

/** Image vectorize: a PNG, JPEG or WebP raster image into an SVG (interface 4.15). */
export interface VectorizeRequest {
  source: MediaRef;
}

export interface CreativeSettings {
  /** split speech text above this many characters into several billed tasks; null = no limit */
  textLimit: number | null;
  /** where results are saved; a library folder */
  creationsDir: string;
}

export interface CreativeApi {
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
  startVectorize(args: VectorizeRequest): Promise<CreativeTaskView>;
  listCreativeTasks(args: { limit?: number; kind?: CreativeKind; active?: boolean }): Promise<CreativeTaskView[]>;
  getCreativeTask(args: { id: number }): Promise<CreativeTaskView>;
  /** The creative task that made this asset, or null. */
  creationOf(args: { assetId: number }): Promise<CreativeTaskView | null>;
  cancelCreativeTask(args: { id: number }): Promise<CreativeTaskView>;
  /** A task past its deadline: keep waiting for another budget of time (the task goes on either way). */
  keepWaitingCreativeTask(args: { id: number }): Promise<CreativeTaskView>;
  /** Run a failed task again as a new task: billed again, so only with confirmBilledAgain. */
  retryCreativeTask(args: { id: number; confirmBilledAgain: true }): Promise<CreativeTaskView>;
  /** Fetch a finished task's result again (no new task, no charge). */
  /** `taskId`: the service's task id, for a task whose create was answered unreadably and showed none */
  refetchResult(args: { id: number; taskId?: string }): Promise<CreativeTaskView>;
  creativeSettings(): Promise<CreativeSettings>;
  setCreativeSettings(args: { settings: Partial<CreativeSettings> }): Promise<CreativeSettings>;
}

export interface CreativeEvents {
  creativeTask: CreativeTaskView;
}
