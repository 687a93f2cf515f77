import type { EditRequest, GenerateRequest, ImageJobArgs, ImageJobPreview, SpeechPreview, SpeechRequest } from '../../src-preload/contract';
import { ApiError } from '../core/errors';
import { DEFAULT_EDIT_MODEL, DEFAULT_GENERATE_MODEL, EDIT_ALIASES } from '../service/endpoints';
import { ServiceError } from '../service/errors';
import type { ImageEditParams, ImageGenerateParams } from '../service/types';
import * as v from '../service/validate';
import { checkReferenceRoles, costPerSourceImage } from './rules';
import { splitText } from './text';

// A creative request as the service's parameters: the speech text split by the length limit,
// the image generation and editing parameters, and the previews shown before anything is
// billed. A broken parameter rule (service/validate.ts) answers as a validation error.

/** ttsCreateJson takes at most 200 characters (vendor openapi). */
const TTS_JSON_MAX = 200;

/** A broken parameter rule is the user's to fix: a validation error naming the field. */
export const fail = (e: unknown): never => {
  if (e instanceof ServiceError) throw new ApiError('validation', e.message, (e as ServiceError & { field?: string }).field);
  throw e;
};

/** The length a speech part may have: the user's limit, and at most 200 characters for the JSON endpoint. */
/** The Gemini reference roles checked (a broken cap is a ServiceError on field sourceRoles); the sources' order as sent. */
export function rolesOf(model: string, r: EditRequest): { order: number[]; note: string | null } {
  try {
    return checkReferenceRoles(model, r.sources.length, r.sourceRoles);
  } catch (e) {
    throw new ServiceError('invalid_input', (e as Error).message, { field: 'sourceRoles', local: true });
  }
}

export function speechLimit(r: SpeechRequest, textLimit: number | null): number | null {
  return r.endpoint === 'ttsCreateJson' ? Math.min(textLimit ?? TTS_JSON_MAX, TTS_JSON_MAX) : textLimit;
}

export function speechParts(r: SpeechRequest, textLimit: number | null): string[] {
  v.checkTtsParams({ voice: r.voice, text: r.text, title: r.title });
  return splitText(r.text, speechLimit(r, textLimit));
}

export function previewSpeech(r: SpeechRequest, textLimit: number | null): SpeechPreview {
  let parts: string[];
  try {
    parts = speechParts(r, textLimit);
  } catch (e) {
    return fail(e);
  }
  const limit = speechLimit(r, textLimit);
  const n = parts.length;
  return {
    billedTasks: n, partLengths: parts.map((p) => p.length), limit,
    message: n === 1
      ? 'One billed text-to-speech task.'
      : `The text is longer than the limit of ${limit} characters: it is split at sentence ends into ${n} parts, each a billed task, and the audio is joined into one file.`,
  };
}

export function generateParams(r: GenerateRequest, styleImage: string | null): ImageGenerateParams {
  const p: ImageGenerateParams = { prompt: r.prompt };
  if (r.model !== undefined) p.model = r.model;
  if (r.quality !== undefined) p.quality = r.quality;
  if (r.imageSize !== undefined) p.image_size = r.imageSize;
  if (r.resolution !== undefined) p.resolution = r.resolution;
  if (r.style !== undefined) p.style = r.style;
  if (r.seed !== undefined) p.seed = r.seed;
  if (r.loraUrl !== undefined) p.lora_url = r.loraUrl;
  if (r.controls !== undefined) {
    p.controls = {};
    if (r.controls.colors !== undefined) p.controls.colors = r.controls.colors;
    if (r.controls.backgroundColor !== undefined) p.controls.background_color = r.controls.backgroundColor;
  }
  if (styleImage) p.image_url = { path: styleImage };
  else if (r.styleImage) p.image_url = { path: '/pending-style-image' };
  return p;
}

export function editParams(r: EditRequest, sources: string[]): ImageEditParams {
  const p: ImageEditParams = { prompt: r.prompt, image_urls: sources.map((path) => ({ path })) };
  if (r.model !== undefined) p.model = r.model;
  if (r.quality !== undefined) p.quality = r.quality;
  if (r.resolution !== undefined) p.resolution = r.resolution;
  if (r.imageSize !== undefined) p.image_size = r.imageSize;
  if (r.megapixelRatio !== undefined) p.megapixel_ratio = r.megapixelRatio;
  if (r.seed !== undefined) p.seed = r.seed;
  return p;
}

export function previewImageJob(a: ImageJobArgs): ImageJobPreview {
  const costNotes: string[] = [];
  const notes: string[] = [];
  let model: string;
  /** What the model charges per source image (edits with GPT models), 0 when it charges none. */
  let perSource = 0;
  try {
    if (a.kind === 'generate') {
      model = a.request.model ?? DEFAULT_GENERATE_MODEL;
      v.checkGenerateParams(generateParams(a.request, null));
      if (a.request.style !== undefined && model !== 'flux') notes.push(`The service documents styles for flux only: ${model} may ignore the style.`);
    } else {
      const raw = a.request.model ?? DEFAULT_EDIT_MODEL;
      model = EDIT_ALIASES[raw] ?? raw;
      v.checkEditParams(editParams(a.request, a.request.sources.map((_, i) => `/source-${i}.jpg`)));
      const roles = rolesOf(model, a.request);
      if (roles.note) notes.push(roles.note);
      const per = costPerSourceImage(model);
      perSource = per ?? 0;
      if (per) costNotes.push(`${model} costs US$${per.toFixed(2)} per source image in addition to the output: ${a.request.sources.length} source image${a.request.sources.length === 1 ? '' : 's'} = US$${(per * a.request.sources.length).toFixed(2)}.`);
      notes.push(`Sources are sent as downscaled copies (at most 2048 px on the long side, metadata removed).`);
    }
  } catch (e) {
    const m = a.kind === 'generate' ? (a.request.model ?? DEFAULT_GENERATE_MODEL) : (a.request.model ?? DEFAULT_EDIT_MODEL);
    if (e instanceof ServiceError) return { ok: false, model: m, error: { field: (e as ServiceError & { field?: string }).field ?? null, message: e.message }, billedTasks: 0, costNotes, notes };
    throw e;
  }
  // Only the GPT models' charge per source image is published; the task's own price is not.
  notes.push(perSource
    ? `Billed as one ${model} edit. Beyond the charge per source image above, the service publishes no price for it.`
    : `Billed as one ${model} ${a.kind === 'generate' ? 'generation' : 'edit'}; the service publishes no price for it.`);
  return { ok: true, model, error: null, billedTasks: 1, costNotes, notes };
}
