// Parameter and result types of the service client. Parameter names are the service's wire
// names, so a validation message ("num_keywords: ...") matches the documentation.

/** A media input: a file on disk (streamed), bytes in memory, or a string (http(s) URL or Data URI). */
export type MediaSource = string | { path: string; mime?: string } | { data: Buffer; mime: string; name?: string };

/** An upload for the analysis endpoints: bytes (a prepared derivative) or a file on disk (video). */
export type UploadSource = { data: Buffer; name?: string; mime?: string } | { path: string; name?: string; mime?: string };

export interface KeywordParams {
  num_keywords?: number;
  threshold?: number;
  lang?: 'en' | 'ru' | 'es' | 'fr' | 'de' | 'pt' | 'it';
  colors?: boolean;
  num_colors?: number;
}
export type VideoKeywordParams = Pick<KeywordParams, 'num_keywords' | 'threshold'> & { lang?: never; colors?: never; num_colors?: never };
export interface CaptionParams {
  caption_len?: 'short' | 'normal' | 'long';
}

export interface TtsParams {
  voice: string;
  text: string;
  title?: string;
  callback?: string;
}
/** The vendor openapi's JSON variant, /v1/tts_create. */
export interface TtsJsonParams {
  text: string;
  speaker?: string;
  language?: string;
  style?: string;
  prompt?: string;
  seed?: number;
  callback_url?: string;
}

export interface LipsyncParams {
  audio: MediaSource;
  video?: MediaSource;
  image?: MediaSource;
  resolution?: '360p' | '480p' | '720p';
  callback_url?: string;
  /** image lipsync only (openapi): 'inftalk' | 'ltx23' */
  model?: string;
}

export interface RecraftColor {
  rgb: [number, number, number] | number[];
  weight?: number;
}

export interface ImageGenerateParams {
  prompt: string;
  model?: string;
  quality?: string;
  image_size?: string;
  resolution?: string;
  style?: string;
  seed?: number;
  controls?: { colors?: RecraftColor[]; background_color?: RecraftColor };
  lora_url?: string;
  callback_url?: string;
  /** style transfer source (flux, style 'transfer') */
  image_url?: MediaSource;
}

export interface ImageEditParams {
  prompt: string;
  image_urls: MediaSource[];
  model?: string;
  quality?: string;
  resolution?: string;
  image_size?: string;
  megapixel_ratio?: number;
  seed?: number;
  callback_url?: string;
}

export interface ImageVectorizeParams {
  image: MediaSource;
  callback_url?: string;
}

export interface FaceSwapParams {
  source: MediaSource;
  target: MediaSource;
  use_gfpgan?: boolean;
  title?: string;
  callback?: string;
}

// ---- Results ---------------------------------------------------------------------------

export interface Keyword {
  /** as the service sent it (casing varies: normalise when storing) */
  keyword: string;
  score: number;
}
export interface Color {
  name: string;
  rgb: number[];
  hex: string;
  percentage: number;
}
export interface KeywordsResult {
  keywords: Keyword[];
  colors?: Color[];
}
export interface CaptionResult {
  caption: string;
}
export interface Face {
  age: number;
  score: number;
  bbox: [number, number, number, number];
  class: string;
}
export interface FacesResult {
  faces: Face[];
}
export interface QualityResult {
  score: number;
}
export interface UgcQualityResult {
  score: number;
  /** 1..5, from the answer or computed as min(5, floor(score*5)+1) */
  class: 1 | 2 | 3 | 4 | 5;
}
export interface Voice {
  api_name: string;
  language: string;
  gender: string;
  age: string;
}

export type TaskStatus = 'PENDING' | 'STARTED' | 'SUCCESS' | 'FAILURE' | 'REVOKED';
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['SUCCESS', 'FAILURE', 'REVOKED'];

export interface TaskCreated {
  task_id: string;
  status: TaskStatus | string;
  queue: number | null;
  eta?: number;
}
export interface TaskState {
  task_id: string;
  status: TaskStatus | string;
  queue: number | null;
  /** the result URL (or data) once SUCCESS; '' before */
  result: string | null;
  error: string | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** overrides the client's request timeout (ms) */
  timeoutMs?: number;
}
