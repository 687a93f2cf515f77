// Generation and editing rules of interface 4.13/4.14, kept as data.
import { parseDataUri } from './body.js';
import { Issues, isHttpUrl, isLoopbackUrl } from './validation.js';

export const IMAGE_SIZES = ['square', 'portrait_3_2', 'portrait_4_3', 'portrait_16_9', 'landscape_3_2', 'landscape_4_3', 'landscape_16_9'] as const;
export const RESOLUTIONS = ['1k', '2k', '3k', '4k'] as const;

export interface ModelRule {
  /** allowed resolutions; absent = any of RESOLUTIONS (ignored by the model) */
  resolutions?: readonly string[];
  defaultResolution: string;
  /** allowed quality values; absent = the model rejects `quality` */
  qualities?: readonly string[];
  /** 3k allowed only with image_size square */
  squareOnly3k?: boolean;
  vector?: boolean;
  /** style values the model checks; absent = free preset (ignored) */
  styles?: readonly string[];
  /** image_edit only */
  maxImages?: number;
  /** the openapi's model names with the quality baked in */
  fixedQuality?: string;
  /** image_edit: image_size when omitted (interface 4.14: seedream defaults to square; others keep the source's proportions) */
  defaultImageSize?: string;
}

const GROK = { resolutions: ['1k', '2k'], defaultResolution: '1k' };
const GEMINI = { resolutions: ['1k', '2k', '4k'], defaultResolution: '1k' };
const GPT = { resolutions: ['1k', '2k', '3k'], defaultResolution: '1k', squareOnly3k: true };
const GPT2_Q = ['low', 'medium', 'high'];

export const GENERATE_MODELS: Record<string, ModelRule> = {
  zimage: { defaultResolution: '1k' },
  flux: { defaultResolution: '1k', styles: ['transparent', 'transfer'] },
  flux2: { defaultResolution: '1k' },
  'grok-imagine': GROK,
  'grok-imagine-2': GROK,
  'grok-imagine-2-low': GROK,
  'gemini-3.1-flash': GEMINI,
  'gemini-3-pro': GEMINI,
  'seedream-5-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k' },
  'seedream-5': { resolutions: ['2k', '3k', '4k'], defaultResolution: '2k' },
  'gpt-image-2': { ...GPT, qualities: GPT2_Q },
  'gpt-image-2.5-sunburst': { ...GPT, qualities: [...GPT2_Q, 'xhigh', 'max'] },
  // The vendor's openapi spells the GPT quality into the model name.
  'gpt-image-2-low': { ...GPT, fixedQuality: 'low' },
  'gpt-image-2-medium': { ...GPT, fixedQuality: 'medium' },
  'gpt-image-2-high': { ...GPT, fixedQuality: 'high' },
  'wan2.7': { resolutions: ['1k', '2k'], defaultResolution: '2k' },
  'wan2.7-pro': { resolutions: ['1k', '2k', '4k'], defaultResolution: '2k' },
  recraftv4_1_vector: { defaultResolution: '1k', vector: true },
  recraftv4_1_pro_vector: { defaultResolution: '1k', vector: true },
};

export const EDIT_MODELS: Record<string, ModelRule> = {
  flux2: { defaultResolution: '1k', maxImages: 5 },
  qwen: { defaultResolution: '1k', maxImages: 3 },
  'grok-imagine': { ...GROK, maxImages: 3 },
  'grok-imagine-2': { ...GROK, maxImages: 3 },
  'grok-imagine-2-low': { ...GROK, maxImages: 3 },
  'gemini-3.1-flash': { ...GEMINI, maxImages: 14 },
  'gemini-3-pro': { ...GEMINI, maxImages: 14 },
  'seedream-5-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 10, defaultImageSize: 'square' },
  'seedream-5': { resolutions: ['2k', '3k', '4k'], defaultResolution: '2k', maxImages: 14, defaultImageSize: 'square' },
  'gpt-image-2': { ...GPT, qualities: GPT2_Q, maxImages: 16 },
  'gpt-image-2.5-sunburst': { ...GPT, qualities: [...GPT2_Q, 'xhigh', 'max'], maxImages: 16 },
  'gpt-image-2-low': { ...GPT, fixedQuality: 'low', maxImages: 16 },
  'gpt-image-2-medium': { ...GPT, fixedQuality: 'medium', maxImages: 16 },
  'gpt-image-2-high': { ...GPT, fixedQuality: 'high', maxImages: 16 },
  'wan2.7': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 9 },
  'wan2.7-pro': { resolutions: ['1k', '2k'], defaultResolution: '2k', maxImages: 9 },
};
export const EDIT_ALIASES: Record<string, string> = { grok: 'grok-imagine' };

export const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/jpg', 'image/webp'];
export const AUDIO_MIMES = [
  'audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave', 'audio/mp4', 'audio/m4a',
  'audio/x-m4a', 'audio/aac', 'audio/ogg', 'audio/flac', 'audio/x-flac', 'audio/opus', 'audio/aiff', 'audio/x-aiff',
  'audio/x-ms-wma', 'audio/webm', 'audio/midi', 'audio/mid', 'audio/x-midi', 'audio/basic', 'audio/au',
];
export const VIDEO_MIMES = [
  'video/mp4', 'video/quicktime', 'video/x-msvideo', 'video/avi', 'video/msvideo', 'video/webm', 'video/mpeg',
  'video/x-m4v', 'video/x-ms-wmv', 'video/ogg', 'video/x-ms-asf', 'application/ogg',
];

export interface GenerationPlan {
  model: string;
  resolution: string;
  imageSize: string | null;
  vector: boolean;
  quality: string | null;
  sources: string[];
  megapixelRatio: number;
  callback: string | null;
}

type Json = Record<string, unknown>;
const str = (v: unknown): v is string => typeof v === 'string';

function checkCallback(iss: Issues, body: Json): string | null {
  const cb = body.callback_url;
  if (cb === undefined || cb === null) return null;
  if (!str(cb) || !isHttpUrl(cb)) { iss.add(['body', 'callback_url'], 'url_parsing', 'Input should be a valid URL', cb); return null; }
  return cb;
}

function checkSeed(iss: Issues, body: Json): void {
  if (body.seed !== undefined && !Number.isInteger(body.seed)) iss.add(['body', 'seed'], 'int_type', 'Input should be a valid integer', body.seed);
}

function checkCommon(iss: Issues, body: Json, rule: ModelRule, endpoint: 'generate' | 'edit'): { resolution: string; quality: string | null; imageSize: string | null } {
  let imageSize: string | null = endpoint === 'generate' ? 'square' : rule.defaultImageSize ?? null;
  if (body.image_size !== undefined && body.image_size !== null) {
    if (!str(body.image_size) || !(IMAGE_SIZES as readonly string[]).includes(body.image_size)) iss.enum(['body', 'image_size'], body.image_size, IMAGE_SIZES);
    else imageSize = body.image_size;
  }
  let resolution = rule.defaultResolution;
  if (body.resolution !== undefined && body.resolution !== null && !rule.vector) {
    const allowed = rule.resolutions ?? RESOLUTIONS;
    if (!str(body.resolution) || !allowed.includes(body.resolution)) iss.enum(['body', 'resolution'], body.resolution, allowed);
    else resolution = body.resolution;
  }
  if (rule.squareOnly3k && resolution === '3k' && imageSize !== 'square') {
    iss.add(['body', 'resolution'], 'value_error', "Value error, resolution '3k' requires image_size 'square'", body.resolution);
  }
  let quality: string | null = rule.fixedQuality ?? (rule.qualities ? 'medium' : null);
  if (body.quality !== undefined && body.quality !== null) {
    if (!rule.qualities) iss.add(['body', 'quality'], 'extra_forbidden', 'Value error, this model does not accept quality', body.quality);
    else if (body.quality === 'auto') iss.add(['body', 'quality'], 'value_error', "Value error, quality 'auto' is not supported", body.quality);
    else if (!str(body.quality) || !rule.qualities.includes(body.quality)) iss.enum(['body', 'quality'], body.quality, rule.qualities);
    else quality = body.quality;
  }
  return { resolution, quality, imageSize };
}

/** A media reference for generation inputs: a Data URI of an image, or a URL the simulator can reach. */
function checkImageRef(iss: Issues, loc: (string | number)[], v: unknown): void {
  if (!str(v) || v.length === 0) { iss.add(loc, 'string_type', 'Input should be a valid string', v); return; }
  if (v.startsWith('data:')) {
    const d = parseDataUri(v);
    if (!d) iss.add(loc, 'value_error', 'Value error, malformed Data URI (expected data:<mime>;base64,<data>)');
    else if (!IMAGE_MIMES.includes(d.mime)) iss.add(loc, 'value_error', `Value error, unsupported image type ${d.mime}`);
    return;
  }
  if (!isHttpUrl(v)) iss.add(loc, 'url_parsing', 'Input should be a valid URL or Data URI', v);
  else if (!isLoopbackUrl(v)) iss.add(loc, 'value_error', 'Value error, the simulator only fetches loopback URLs', v);
}

function checkPrompt(iss: Issues, body: Json): void {
  if (body.prompt === undefined) iss.missing(['body', 'prompt']);
  else if (!str(body.prompt)) iss.add(['body', 'prompt'], 'string_type', 'Input should be a valid string', body.prompt);
  else if (!body.prompt.trim()) iss.add(['body', 'prompt'], 'string_too_short', 'String should have at least 1 character', body.prompt);
}

export function checkGenerate(body: Json): GenerationPlan {
  const iss = new Issues();
  checkPrompt(iss, body);
  const model = body.model === undefined || body.model === null ? 'zimage' : body.model;
  const rule = str(model) ? GENERATE_MODELS[model] : undefined;
  if (!rule) {
    iss.enum(['body', 'model'], model, Object.keys(GENERATE_MODELS));
    iss.throwIfAny();
    throw new Error('unreachable');
  }
  const { resolution, quality, imageSize } = checkCommon(iss, body, rule, 'generate');
  if (body.style !== undefined && body.style !== null) {
    if (!str(body.style)) iss.add(['body', 'style'], 'string_type', 'Input should be a valid string', body.style);
    else if (rule.styles && !rule.styles.includes(body.style)) iss.enum(['body', 'style'], body.style, rule.styles);
    else if (model === 'flux' && body.style === 'transfer' && !body.image_url) iss.add(['body', 'image_url'], 'missing', "Field required: style 'transfer' needs image_url");
  }
  if (body.image_url !== undefined && body.image_url !== null) checkImageRef(iss, ['body', 'image_url'], body.image_url);
  if (body.controls !== undefined && body.controls !== null) {
    if (!rule.vector) iss.add(['body', 'controls'], 'extra_forbidden', 'Value error, controls are only accepted by the recraft vector models', body.controls);
    else checkControls(iss, body.controls);
  }
  if (body.lora_url !== undefined && body.lora_url !== null && (!str(body.lora_url) || !isHttpUrl(body.lora_url))) iss.add(['body', 'lora_url'], 'url_parsing', 'Input should be a valid URL', body.lora_url);
  checkSeed(iss, body);
  const callback = checkCallback(iss, body);
  iss.throwIfAny();
  return { model: model as string, resolution, imageSize, vector: !!rule.vector, quality, sources: [], megapixelRatio: 1, callback };
}

function checkControls(iss: Issues, controls: unknown): void {
  if (typeof controls !== 'object' || Array.isArray(controls)) { iss.add(['body', 'controls'], 'model_type', 'Input should be an object', controls); return; }
  const c = controls as Json;
  for (const k of Object.keys(c)) if (k !== 'colors' && k !== 'background_color') iss.add(['body', 'controls', k], 'extra_forbidden', 'Extra inputs are not permitted', c[k]);
  const color = (loc: (string | number)[], v: unknown) => {
    const o = v as Json | null;
    if (!o || typeof o !== 'object') { iss.add(loc, 'model_type', 'Input should be an object', v); return; }
    const rgb = o.rgb;
    if (!Array.isArray(rgb) || rgb.length !== 3 || !rgb.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) iss.add([...loc, 'rgb'], 'value_error', 'Value error, rgb must be three integers 0..255', rgb);
    if (o.weight !== undefined && o.weight !== null && !(typeof o.weight === 'number' && o.weight >= 0 && o.weight <= 1)) iss.add([...loc, 'weight'], 'value_error', 'Value error, weight must be within 0..1', o.weight);
  };
  if (c.colors !== undefined) {
    if (!Array.isArray(c.colors)) iss.add(['body', 'controls', 'colors'], 'list_type', 'Input should be a valid list', c.colors);
    else {
      if (c.colors.length > 12) iss.add(['body', 'controls', 'colors'], 'too_long', `List should have at most 12 items after validation, not ${c.colors.length}`, undefined, { max_length: 12 });
      c.colors.forEach((v, i) => color(['body', 'controls', 'colors', i], v));
    }
  }
  if (c.background_color !== undefined && c.background_color !== null) color(['body', 'controls', 'background_color'], c.background_color);
}

export function checkEdit(body: Json): GenerationPlan {
  const iss = new Issues();
  checkPrompt(iss, body);
  const rawModel = body.model === undefined || body.model === null ? 'flux2' : body.model;
  const model = str(rawModel) ? EDIT_ALIASES[rawModel] ?? rawModel : rawModel;
  const rule = str(model) ? EDIT_MODELS[model] : undefined;
  if (!rule) {
    iss.enum(['body', 'model'], rawModel, [...Object.keys(EDIT_MODELS), ...Object.keys(EDIT_ALIASES)]);
    iss.throwIfAny();
    throw new Error('unreachable');
  }
  const { resolution, quality, imageSize } = checkCommon(iss, body, rule, 'edit');
  const urls = body.image_urls;
  if (urls === undefined) iss.missing(['body', 'image_urls']);
  else if (!Array.isArray(urls)) iss.add(['body', 'image_urls'], 'list_type', 'Input should be a valid list', urls);
  else if (urls.length < 1) iss.add(['body', 'image_urls'], 'too_short', 'List should have at least 1 item after validation, not 0', undefined, { min_length: 1 });
  else {
    if (urls.length > rule.maxImages!) iss.add(['body', 'image_urls'], 'too_long', `List should have at most ${rule.maxImages} items for model ${model as string}, not ${urls.length}`, undefined, { max_length: rule.maxImages });
    urls.forEach((u, i) => checkImageRef(iss, ['body', 'image_urls', i], u));
  }
  let ratio = 1;
  if (body.megapixel_ratio !== undefined && body.megapixel_ratio !== null) {
    if (typeof body.megapixel_ratio !== 'number') iss.add(['body', 'megapixel_ratio'], 'float_type', 'Input should be a valid number', body.megapixel_ratio);
    else if (body.megapixel_ratio < 0.5) iss.add(['body', 'megapixel_ratio'], 'greater_than_equal', 'Input should be greater than or equal to 0.5', body.megapixel_ratio, { ge: 0.5 });
    else if (body.megapixel_ratio > 1.5) iss.add(['body', 'megapixel_ratio'], 'less_than_equal', 'Input should be less than or equal to 1.5', body.megapixel_ratio, { le: 1.5 });
    else ratio = body.megapixel_ratio;
  }
  checkSeed(iss, body);
  const callback = checkCallback(iss, body);
  iss.throwIfAny();
  return { model: model as string, resolution, imageSize, vector: false, quality, sources: urls as string[], megapixelRatio: ratio, callback };
}

/** Lipsync media fields: full Data URIs of an allowed MIME type. */
export function checkMediaDataUri(iss: Issues, field: string, v: unknown, mimes: string[]): void {
  if (v === undefined || v === null) { iss.missing(['body', field]); return; }
  if (!str(v)) { iss.add(['body', field], 'string_type', 'Input should be a valid string', v); return; }
  const d = parseDataUri(v);
  if (!d) iss.add(['body', field], 'value_error', 'Value error, expected a Data URI data:<mimetype>;base64,<data>');
  else if (!mimes.includes(d.mime)) iss.add(['body', field], 'value_error', `Value error, MIME type ${d.mime} is not accepted for ${field}`);
  else if (d.data.length === 0) iss.add(['body', field], 'value_error', 'Value error, empty media');
}

/** Output size in pixels for a resolution class and image_size. */
export function outputSize(resolution: string, imageSize: string | null, sourceAspect = 1, megapixelRatio = 1): { width: number; height: number } {
  const side = ({ '1k': 1024, '2k': 2048, '3k': 3072, '4k': 4096 } as Record<string, number>)[resolution] ?? 1024;
  let aspect = sourceAspect;
  const m = imageSize ? /^(portrait|landscape)_(\d+)_(\d+)$/.exec(imageSize) : null;
  if (imageSize === 'square') aspect = 1;
  else if (m) aspect = m[1] === 'landscape' ? Number(m[2]) / Number(m[3]) : Number(m[3]) / Number(m[2]);
  const s = Math.sqrt(megapixelRatio);
  const long = side * s;
  const w = aspect >= 1 ? long : long * aspect;
  const h = aspect >= 1 ? long / aspect : long;
  return { width: Math.max(16, Math.round(w / 16) * 16), height: Math.max(16, Math.round(h / 16) * 16) };
}
