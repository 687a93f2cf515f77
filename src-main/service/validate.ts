// Parameter rules of interface.md checked before sending, so a bad request never costs a
// round trip. Each failure names the field (its wire name) and the rule.
import {
  CAPTION_LENGTHS, DEFAULT_EDIT_MODEL, DEFAULT_GENERATE_MODEL, EDIT_ALIASES, EDIT_MODELS, GENERATE_MODELS, IMAGE_SIZES,
  KEYWORD_LANGS, LIPSYNC_RESOLUTIONS, MAX_CONTROL_COLORS, MAX_KEYWORDS, MEGAPIXEL_RATIO, type ModelRule,
} from './endpoints';
import { invalidParam } from './errors';
import type {
  CaptionParams, FaceSwapParams, ImageEditParams, ImageGenerateParams, ImageVectorizeParams, KeywordParams, LipsyncParams,
  MediaSource, TtsJsonParams, TtsParams, VideoKeywordParams,
} from './types';

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const list = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');

function oneOf(field: string, v: unknown, allowed: readonly string[]): void {
  if (typeof v !== 'string' || !allowed.includes(v)) throw invalidParam(field, `must be one of ${list(allowed)}`);
}

export function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function optionalUrl(field: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (!isHttpUrl(v)) throw invalidParam(field, 'must be an http(s) URL');
}

function optionalSeed(v: unknown): void {
  if (v !== undefined && v !== null && !isInt(v)) throw invalidParam('seed', 'must be an integer (-1 for random)');
}

function requiredText(field: string, v: unknown): void {
  if (typeof v !== 'string' || !v.trim()) throw invalidParam(field, 'is required and must not be empty');
}

/** Returns the parameters as sent: num_keywords above 50 is capped at 50 (interface 4.2). */
export function checkKeywordParams(p: KeywordParams = {}, video = false): KeywordParams {
  const out: KeywordParams = { ...p };
  if (p.num_keywords !== undefined) {
    if (!isInt(p.num_keywords) || p.num_keywords < 1) throw invalidParam('num_keywords', 'must be a whole number of at least 1');
    out.num_keywords = Math.min(MAX_KEYWORDS, p.num_keywords);
  }
  if (p.threshold !== undefined && (!isNum(p.threshold) || p.threshold < 0 || p.threshold > 1)) {
    throw invalidParam('threshold', 'must be a number from 0.0 to 1.0');
  }
  if (video) {
    for (const f of ['lang', 'colors', 'num_colors'] as const) {
      if (p[f] !== undefined) throw invalidParam(f, 'is not supported for video keywording');
    }
    return out;
  }
  if (p.lang !== undefined) oneOf('lang', p.lang, KEYWORD_LANGS);
  if (p.colors !== undefined && typeof p.colors !== 'boolean') throw invalidParam('colors', 'must be true or false');
  if (p.num_colors !== undefined) {
    if (!isInt(p.num_colors) || p.num_colors < 1 || p.num_colors > 10) throw invalidParam('num_colors', 'must be a whole number from 1 to 10');
    if (p.colors !== true) throw invalidParam('num_colors', 'only applies with colors=true');
  }
  return out;
}

export const checkVideoKeywordParams = (p: VideoKeywordParams = {}): VideoKeywordParams => checkKeywordParams(p, true) as VideoKeywordParams;

export function checkCaptionParams(p: CaptionParams = {}): CaptionParams {
  if (p.caption_len !== undefined) oneOf('caption_len', p.caption_len, CAPTION_LENGTHS);
  return p;
}

export function checkTtsParams(p: TtsParams): TtsParams {
  requiredText('voice', p.voice);
  requiredText('text', p.text);
  if (p.title !== undefined && typeof p.title !== 'string') throw invalidParam('title', 'must be text');
  optionalUrl('callback', p.callback);
  return p;
}

export function checkTtsJsonParams(p: TtsJsonParams): TtsJsonParams {
  requiredText('text', p.text);
  if (p.text.length > 200) throw invalidParam('text', 'must be at most 200 characters for /v1/tts_create');
  optionalSeed(p.seed);
  optionalUrl('callback_url', p.callback_url);
  return p;
}

function checkMedia(field: string, v: MediaSource | undefined, what: string): void {
  if (v === undefined || v === null) throw invalidParam(field, `is required (${what})`);
  if (typeof v === 'string') {
    if (v.startsWith('data:')) {
      if (!/^data:[a-z0-9.+-]+\/[a-z0-9.+-]+(;[^,;]+)*;base64,/i.test(v)) throw invalidParam(field, 'must be a Data URI data:<mimetype>;base64,<data>');
      return;
    }
    if (!isHttpUrl(v)) throw invalidParam(field, `must be a file, a Data URI or an http(s) URL (${what})`);
    return;
  }
  if ('path' in v && typeof v.path === 'string' && v.path) return;
  if ('data' in v && Buffer.isBuffer(v.data) && v.data.length > 0 && typeof v.mime === 'string') return;
  throw invalidParam(field, `must be a file (${what})`);
}

export function checkLipsyncParams(p: LipsyncParams, kind: 'video' | 'image'): LipsyncParams {
  checkMedia('audio_url', p.audio, 'spoken audio: MP3, WAV, M4A, OGG, FLAC, ...');
  if (kind === 'video') checkMedia('video_url', p.video, 'a clip with a clearly visible face');
  else checkMedia('image_url', p.image, 'a portrait with one visible face');
  if (p.resolution !== undefined) oneOf('resolution', p.resolution, LIPSYNC_RESOLUTIONS);
  optionalUrl('callback_url', p.callback_url);
  return p;
}

function checkModelCommon(rule: ModelRule, model: string, p: { quality?: string; resolution?: string; image_size?: string }, generate: boolean): void {
  if (p.image_size !== undefined) oneOf('image_size', p.image_size, IMAGE_SIZES);
  if (p.resolution !== undefined && !rule.vector) {
    // A model with no documented resolutions: the interface sets no rule, the service decides.
    if (rule.resolutions) oneOf('resolution', p.resolution, rule.resolutions);
    const size = p.image_size ?? (generate ? 'square' : undefined);
    if (rule.squareOnly3k && p.resolution === '3k' && size !== 'square') {
      throw invalidParam('resolution', `'3k' needs image_size 'square' for model '${model}'`);
    }
  }
  if (p.quality !== undefined) {
    if (!rule.qualities) throw invalidParam('quality', `is only accepted by gpt-image-2 and gpt-image-2.5-sunburst, not by '${model}'`);
    if (p.quality === 'auto') throw invalidParam('quality', "'auto' is not supported");
    oneOf('quality', p.quality, rule.qualities);
  }
}

export function checkGenerateParams(p: ImageGenerateParams): ImageGenerateParams {
  requiredText('prompt', p.prompt);
  const model = p.model ?? DEFAULT_GENERATE_MODEL;
  const rule = GENERATE_MODELS[model];
  if (!rule) throw invalidParam('model', `must be one of ${list(Object.keys(GENERATE_MODELS))}`);
  checkModelCommon(rule, model, p, true);
  if (p.style !== undefined) {
    if (typeof p.style !== 'string') throw invalidParam('style', 'must be text');
    if (rule.styles && !rule.vector) oneOf('style', p.style, rule.styles);
    if (model === 'flux' && p.style === 'transfer' && p.image_url === undefined) throw invalidParam('image_url', "is required with style 'transfer'");
  }
  if (p.image_url !== undefined) checkMedia('image_url', p.image_url, 'the style source image');
  if (p.controls !== undefined) {
    if (!rule.vector) throw invalidParam('controls', 'are only accepted by recraftv4_1_vector and recraftv4_1_pro_vector');
    const colors = p.controls.colors ?? [];
    if (!Array.isArray(colors)) throw invalidParam('controls.colors', 'must be a list');
    if (colors.length > MAX_CONTROL_COLORS) throw invalidParam('controls.colors', `at most ${MAX_CONTROL_COLORS} colours`);
    const rgbOk = (c: { rgb?: unknown }) => Array.isArray(c?.rgb) && c.rgb.length === 3 && c.rgb.every((x) => isInt(x) && x >= 0 && x <= 255);
    colors.forEach((c, i) => {
      if (!rgbOk(c)) throw invalidParam(`controls.colors[${i}].rgb`, 'must be three whole numbers 0..255');
      const w = (c as { weight?: unknown }).weight;
      if (w !== undefined && (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 1)) throw invalidParam(`controls.colors[${i}].weight`, 'must be a number from 0 to 1');
    });
    if (p.controls.background_color !== undefined && !rgbOk(p.controls.background_color)) throw invalidParam('controls.background_color.rgb', 'must be three whole numbers 0..255');
  }
  if (p.lora_url !== undefined) optionalUrl('lora_url', p.lora_url);
  optionalSeed(p.seed);
  optionalUrl('callback_url', p.callback_url);
  return p;
}

export function checkEditParams(p: ImageEditParams): ImageEditParams {
  requiredText('prompt', p.prompt);
  const raw = p.model ?? DEFAULT_EDIT_MODEL;
  const model = EDIT_ALIASES[raw] ?? raw;
  const rule = EDIT_MODELS[model];
  if (!rule) throw invalidParam('model', `must be one of ${list([...Object.keys(EDIT_MODELS), ...Object.keys(EDIT_ALIASES)])}`);
  checkModelCommon(rule, model, p, false);
  if (!Array.isArray(p.image_urls) || p.image_urls.length < 1) throw invalidParam('image_urls', 'needs at least one source image');
  if (p.image_urls.length > rule.maxImages!) throw invalidParam('image_urls', `at most ${rule.maxImages} images for model '${model}'`);
  p.image_urls.forEach((u, i) => checkMedia(`image_urls[${i}]`, u, 'a source image'));
  if (p.megapixel_ratio !== undefined && (!isNum(p.megapixel_ratio) || p.megapixel_ratio < MEGAPIXEL_RATIO.min || p.megapixel_ratio > MEGAPIXEL_RATIO.max)) {
    throw invalidParam('megapixel_ratio', `must be a number from ${MEGAPIXEL_RATIO.min} to ${MEGAPIXEL_RATIO.max}`);
  }
  optionalSeed(p.seed);
  optionalUrl('callback_url', p.callback_url);
  return p;
}

export function checkVectorizeParams(p: ImageVectorizeParams): ImageVectorizeParams {
  checkMedia('image_url', p.image, 'a PNG, JPEG or WebP image');
  optionalUrl('callback_url', p.callback_url);
  return p;
}

/** Image face swap, or (target 'video') video face swap: the donor face is an image either way. */
export function checkFaceSwapParams(p: FaceSwapParams, target: 'image' | 'video' = 'image'): FaceSwapParams {
  checkMedia('source', p.source, 'the donor face image');
  checkMedia('target', p.target, target === 'video' ? 'the video that receives the face' : 'the image that receives the face');
  if (typeof p.source === 'string' || typeof p.target === 'string') throw invalidParam('source', 'face swap uploads files; give a path or bytes');
  if (p.use_gfpgan !== undefined && typeof p.use_gfpgan !== 'boolean') throw invalidParam('use_gfpgan', 'must be true or false');
  optionalUrl('callback', p.callback);
  return p;
}

export function checkTaskId(id: unknown): string {
  if (typeof id !== 'string' || !/^[0-9a-f-]{8,64}$/i.test(id)) throw invalidParam('task_id', 'must be the task id the service returned');
  return id;
}
