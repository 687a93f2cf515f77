// Every endpoint of the service as data (interface.md, plus the vendor openapi's extras).
// A renamed path, a new rate limit or a new model is a one-line change here.

/** How a request carries its input. */
export type BodyKind =
  /** multipart/form-data with the file in `data`; other parameters in the query string */
  | 'multipart-data'
  /** multipart/form-data with named file parts (face swap: source, target) */
  | 'multipart-files'
  /** application/x-www-form-urlencoded fields */
  | 'form'
  | 'json'
  /** no body; parameters (if any) in the query string */
  | 'none';

export type EndpointName =
  | 'authCheck'
  | 'keywords'
  | 'videoKeywords'
  | 'caption'
  | 'faces'
  | 'quality'
  | 'qualityUgc'
  | 'status'
  | 'cancelTask'
  | 'tts'
  | 'ttsCreateJson'
  | 'voices'
  | 'videoLipsync'
  | 'imageLipsync'
  | 'imageGenerate'
  | 'imageEdit'
  | 'imageVectorize'
  | 'faceSwap'
  | 'faceSwapStatus'
  | 'faceSwapTerminate'
  | 'videoFaceSwap'
  | 'videoFaceSwapStatus'
  | 'videoFaceSwapTerminate';

export interface Endpoint {
  name: EndpointName;
  path: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** async endpoints answer a task_id; the result comes from status polling */
  mode: 'sync' | 'async' | 'meta';
  body: BodyKind;
  /** requests per rolling second the service allows (interface section 8) */
  ratePerSecond: number;
  /**
   * The service counts its limit per endpoint; endpoints sharing a key share one limiter.
   * Defaults to the path.
   */
  rateKey?: string;
  /** the service runs these one at a time per account (interface section 3) */
  serialGroup?: 'tts' | 'lipsync' | 'faceswap';
  /**
   * Model key the service bills under (the simulator's `billed()` keys). `image_generate`
   * and `image_edit` bill per model: `image_generate:<model>`. Absent = free.
   */
  billing?: string;
  billingPerModel?: boolean;
  /**
   * Alternative path tried once when the service answers 404, either way round (TTS: /v1/tts
   * and /v1/tts/create; face swap: /v1/imageswap and /v1/imageswap/create). The client
   * remembers which one answered.
   */
  fallbackPath?: string;
  /** image inputs this endpoint takes and what the service accepts */
  input?: 'image' | 'video' | 'none';
}

export const DEFAULT_RATE = 30;

export const ENDPOINTS: Record<EndpointName, Endpoint> = {
  authCheck: { name: 'authCheck', path: '/v1/auth/check', method: 'GET', mode: 'meta', body: 'none', ratePerSecond: DEFAULT_RATE },
  keywords: { name: 'keywords', path: '/v1/keywords', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 30, billing: 'keywords', input: 'image' },
  videoKeywords: { name: 'videoKeywords', path: '/v1/video_keywords', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 1, billing: 'video_keywords', input: 'video' },
  caption: { name: 'caption', path: '/v1/image_captioning', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 1, billing: 'image_captioning', input: 'image' },
  faces: { name: 'faces', path: '/v1/faces', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 10, billing: 'faces', input: 'image' },
  quality: { name: 'quality', path: '/v1/quality', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 30, billing: 'quality', input: 'image' },
  qualityUgc: { name: 'qualityUgc', path: '/v1/quality_ugc', method: 'POST', mode: 'sync', body: 'multipart-data', ratePerSecond: 30, billing: 'quality_ugc', input: 'image' },
  status: { name: 'status', path: '/v1/status', method: 'GET', mode: 'meta', body: 'none', ratePerSecond: 30 },
  cancelTask: { name: 'cancelTask', path: '/v1/tasks/{task_id}', method: 'DELETE', mode: 'meta', body: 'none', ratePerSecond: 30, rateKey: '/v1/tasks' },
  tts: { name: 'tts', path: '/v1/tts', fallbackPath: '/v1/tts/create', method: 'POST', mode: 'async', body: 'form', ratePerSecond: 30, serialGroup: 'tts', billing: 'tts' },
  // The vendor openapi's JSON variant (speaker/language instead of voice); an option, not the default.
  ttsCreateJson: { name: 'ttsCreateJson', path: '/v1/tts_create', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, serialGroup: 'tts', billing: 'tts' },
  voices: { name: 'voices', path: '/v1/tts/voices', method: 'GET', mode: 'meta', body: 'none', ratePerSecond: 30 },
  videoLipsync: { name: 'videoLipsync', path: '/v1/video_lipsync', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, serialGroup: 'lipsync', billing: 'video_lipsync' },
  imageLipsync: { name: 'imageLipsync', path: '/v1/image_lipsync', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, serialGroup: 'lipsync', billing: 'image_lipsync' },
  imageGenerate: { name: 'imageGenerate', path: '/v1/image_generate', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, billing: 'image_generate', billingPerModel: true },
  imageEdit: { name: 'imageEdit', path: '/v1/image_edit', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, billing: 'image_edit', billingPerModel: true },
  imageVectorize: { name: 'imageVectorize', path: '/v1/image_vectorize', method: 'POST', mode: 'async', body: 'json', ratePerSecond: 30, billing: 'image_vectorize' },
  // The interface's path (4.15) first, the vendor openapi's /v1/imageswap/create when it is a 404.
  faceSwap: { name: 'faceSwap', path: '/v1/imageswap', fallbackPath: '/v1/imageswap/create', rateKey: '/v1/imageswap/create', method: 'POST', mode: 'async', body: 'multipart-files', ratePerSecond: 30, serialGroup: 'faceswap', billing: 'imageswap' },
  faceSwapStatus: { name: 'faceSwapStatus', path: '/v1/imageswap/status', method: 'GET', mode: 'meta', body: 'none', ratePerSecond: 30 },
  faceSwapTerminate: { name: 'faceSwapTerminate', path: '/v1/imageswap/terminate', method: 'POST', mode: 'meta', body: 'none', ratePerSecond: 30 },
  // Video face swap: the interface names it without an endpoint; the vendor openapi has /v1/videoswap/*.
  // It shares the face swap lane (one at a time per account) until the service says otherwise.
  videoFaceSwap: { name: 'videoFaceSwap', path: '/v1/videoswap/create', method: 'POST', mode: 'async', body: 'multipart-files', ratePerSecond: 30, serialGroup: 'faceswap', billing: 'videoswap', input: 'video' },
  videoFaceSwapStatus: { name: 'videoFaceSwapStatus', path: '/v1/videoswap/status', method: 'GET', mode: 'meta', body: 'none', ratePerSecond: 30 },
  videoFaceSwapTerminate: { name: 'videoFaceSwapTerminate', path: '/v1/videoswap/terminate', method: 'POST', mode: 'meta', body: 'none', ratePerSecond: 30 },
};

export const rateKeyOf = (e: Endpoint): string => e.rateKey ?? e.path;

/** The model key a call of this endpoint is billed under, or null when it is free. */
export function billingKey(name: EndpointName, params: { model?: unknown } = {}): string | null {
  const e = ENDPOINTS[name];
  if (!e.billing) return null;
  if (!e.billingPerModel) return e.billing;
  const fallback = name === 'imageGenerate' ? 'zimage' : 'flux2';
  const raw = typeof params.model === 'string' ? params.model : fallback;
  const model = name === 'imageEdit' ? EDIT_ALIASES[raw] ?? raw : raw;
  return `${e.billing}:${model}`;
}

// ---- Analysis parameter rules (interface 4.2-4.4) -------------------------------------

export const KEYWORD_LANGS = ['en', 'ru', 'es', 'fr', 'de', 'pt', 'it'] as const;
export const CAPTION_LENGTHS = ['short', 'normal', 'long'] as const;
export const MAX_KEYWORDS = 50;
export const VIDEO_MAX_BYTES = 100 * 1024 * 1024;
export const VIDEO_RECOMMENDED_SECONDS = { min: 5, max: 60 } as const;
export const LIPSYNC_RESOLUTIONS = ['360p', '480p', '720p'] as const;
/** The UGC scorer's public page: JPEG/PNG between 20 KB and 10 MB. */
export const UGC_MIN_BYTES = 20 * 1024;

// ---- Generation and editing models (interface 4.13, 4.14) -----------------------------

export const IMAGE_SIZES = ['square', 'portrait_3_2', 'portrait_4_3', 'portrait_16_9', 'landscape_3_2', 'landscape_4_3', 'landscape_16_9'] as const;
export const RESOLUTIONS = ['1k', '2k', '3k', '4k'] as const;
export const GPT_QUALITIES = ['low', 'medium', 'high'] as const;
export const SUNBURST_QUALITIES = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export const MAX_CONTROL_COLORS = 12;
export const MEGAPIXEL_RATIO = { min: 0.5, max: 1.5 } as const;

export interface ModelRule {
  /** allowed resolutions; absent = none documented (a value is sent as given, the service decides) */
  resolutions?: readonly string[];
  defaultResolution?: string;
  /** allowed `quality` values; absent = the model rejects the parameter */
  qualities?: readonly string[];
  /** resolution 3k only with image_size 'square' */
  squareOnly3k?: boolean;
  /** returns SVG; takes `controls`, ignores resolution and style */
  vector?: boolean;
  /** style values the model checks */
  styles?: readonly string[];
  /** image_edit: most entries in image_urls */
  maxImages?: number;
}

const GROK: ModelRule = { resolutions: ['1k', '2k'], defaultResolution: '1k' };
const GEMINI: ModelRule = { resolutions: ['1k', '2k', '4k'], defaultResolution: '1k' };
const GPT: ModelRule = { resolutions: ['1k', '2k', '3k'], defaultResolution: '1k', squareOnly3k: true };

export const GENERATE_MODELS: Record<string, ModelRule> = {
  zimage: {},
  flux: { styles: ['transparent', 'transfer'] },
  flux2: {},
  'grok-imagine': GROK,
  'grok-imagine-2': GROK,
  'grok-imagine-2-low': GROK,
  'gemini-3.1-flash': GEMINI,
  'gemini-3-pro': GEMINI,
  'seedream-5-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k' },
  'seedream-5': { resolutions: ['2k', '3k', '4k'], defaultResolution: '2k' },
  'gpt-image-2': { ...GPT, qualities: GPT_QUALITIES },
  'gpt-image-2.5-sunburst': { ...GPT, qualities: SUNBURST_QUALITIES },
  'wan2.7': { resolutions: ['1k', '2k'], defaultResolution: '2k' },
  'wan2.7-pro': { resolutions: ['1k', '2k', '4k'], defaultResolution: '2k' },
  recraftv4_1_vector: { vector: true },
  recraftv4_1_pro_vector: { vector: true },
};
export const DEFAULT_GENERATE_MODEL = 'zimage';

export const EDIT_MODELS: Record<string, ModelRule> = {
  flux2: { maxImages: 5 },
  qwen: { maxImages: 3 },
  'grok-imagine': { ...GROK, maxImages: 3 },
  'grok-imagine-2': { ...GROK, maxImages: 3 },
  'grok-imagine-2-low': { ...GROK, maxImages: 3 },
  'gemini-3.1-flash': { ...GEMINI, maxImages: 14 },
  'gemini-3-pro': { ...GEMINI, maxImages: 14 },
  'seedream-5-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 10 },
  'seedream-5': { resolutions: ['2k', '3k', '4k'], defaultResolution: '2k', maxImages: 14 },
  'gpt-image-2': { ...GPT, qualities: GPT_QUALITIES, maxImages: 16 },
  'gpt-image-2.5-sunburst': { ...GPT, qualities: SUNBURST_QUALITIES, maxImages: 16 },
  'wan2.7': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 9 },
  'wan2.7-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 9 },
};
export const DEFAULT_EDIT_MODEL = 'flux2';

/** What a source image of an edit stands for (Gemini models count them separately). */
export type ReferenceRole = 'object' | 'character' | 'style';
export const REFERENCE_ROLES: readonly ReferenceRole[] = ['object', 'character', 'style'];
/**
 * interface 4.14: within the Gemini total, gemini-3.1-flash allows up to 10 object and 4
 * character references, gemini-3-pro 6 object, 5 character and 3 style. A role absent from a
 * model's record is not allowed for it.
 */
export const REFERENCE_CAPS: Record<string, Partial<Record<ReferenceRole, number>>> = {
  'gemini-3.1-flash': { object: 10, character: 4 },
  'gemini-3-pro': { object: 6, character: 5, style: 3 },
};
/** interface 4.14: `grok` is accepted for grok-imagine */
export const EDIT_ALIASES: Record<string, string> = { grok: 'grok-imagine' };

/** MIME types the lipsync endpoints accept in their Data URIs. */
export const LIPSYNC_AUDIO_EXT: Record<string, string> = {
  mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4', ogg: 'audio/ogg', oga: 'audio/ogg', flac: 'audio/flac',
  opus: 'audio/opus', aiff: 'audio/aiff', aif: 'audio/aiff', wma: 'audio/x-ms-wma', webm: 'audio/webm', weba: 'audio/webm',
  mid: 'audio/midi', midi: 'audio/midi', au: 'audio/basic',
};
export const LIPSYNC_VIDEO_EXT: Record<string, string> = {
  mp4: 'video/mp4', mov: 'video/quicktime', avi: 'video/x-msvideo', webm: 'video/webm', mpeg: 'video/mpeg', mpg: 'video/mpeg',
  m4v: 'video/x-m4v', wmv: 'video/x-ms-wmv', ogv: 'video/ogg', ogm: 'video/ogg', asx: 'video/x-ms-asf',
};
export const IMAGE_EXT: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
