import type { ModelRules, ModelRuleView } from '../../src-preload/contract';
import {
  DEFAULT_EDIT_MODEL, DEFAULT_GENERATE_MODEL, EDIT_ALIASES, EDIT_MODELS, GENERATE_MODELS, GPT_QUALITIES, IMAGE_SIZES, LIPSYNC_RESOLUTIONS,
  MAX_CONTROL_COLORS, MEGAPIXEL_RATIO, REFERENCE_CAPS, REFERENCE_ROLES, type ModelRule, type ReferenceRole,
} from '../service/endpoints';

/**
 * The roles of edit sources checked against the model's per-role caps (interface 4.14). Returns
 * the sources' order as sent (objects, then characters, then styles) or throws a message naming
 * the cap. Models without roles take no roles.
 */
export function checkReferenceRoles(model: string, count: number, roles: ReferenceRole[] | undefined): { order: number[]; note: string | null } {
  const caps = REFERENCE_CAPS[model];
  const identity = Array.from({ length: count }, (_, i) => i);
  if (!roles || roles.length === 0) return { order: identity, note: null };
  if (!caps) throw new Error(`${model} takes no reference roles (only the Gemini models do): choose a Gemini model, or leave the pictures unmarked.`);
  if (roles.length !== count) throw new Error(`give each source picture one role: ${count} picture${count === 1 ? '' : 's'}, ${roles.length} role${roles.length === 1 ? '' : 's'} marked.`);
  for (const role of REFERENCE_ROLES) {
    const n = roles.filter((r) => r === role).length;
    const cap = caps[role] ?? 0;
    if (n > cap) {
      throw new Error(cap === 0
        ? `${model} takes no ${role} references; mark them as ${REFERENCE_ROLES.filter((r) => (caps[r] ?? 0) > 0).join(' or ')}.`
        : `${model} takes at most ${cap} ${role} reference${cap === 1 ? '' : 's'} (${n} marked).`);
    }
  }
  const order = REFERENCE_ROLES.flatMap((role) => identity.filter((i) => roles[i] === role));
  const counts = REFERENCE_ROLES.map((r) => [r, roles.filter((x) => x === r).length] as const).filter(([, n]) => n > 0);
  return { order, note: `Sent in role order (${counts.map(([r, n]) => `${n} ${r}`).join(', ')}). The service cannot be told which picture plays which role: say it in the instructions (“the person from the second picture…”).` };
}
import { ruleExtensions } from './media';

// What the generation and editing forms may offer, straight from the model tables of
// service/endpoints.ts (a model added or retired there shows up here unchanged).

/** interface 4.14: GPT image models cost 0.02 dollars per source image on top of the output. */
const SOURCE_IMAGE_COST: Record<string, number> = { 'gpt-image-2': 0.02, 'gpt-image-2.5-sunburst': 0.02 };

export const costPerSourceImage = (model: string): number | null => SOURCE_IMAGE_COST[model] ?? null;

function view(model: string, r: ModelRule, edit: boolean): ModelRuleView {
  return {
    model,
    resolutions: r.vector ? null : r.resolutions ? [...r.resolutions] : null,
    defaultResolution: r.vector ? null : r.defaultResolution ?? null,
    qualities: r.qualities ? [...r.qualities] : null,
    defaultQuality: r.qualities ? 'medium' : null,
    squareOnly3k: r.squareOnly3k === true,
    vector: r.vector === true,
    styles: r.styles ? [...r.styles] : null,
    stylesNeedingImage: model === 'flux' ? ['transfer'] : [],
    maxImages: edit ? (r.maxImages ?? null) : null,
    costPerSourceImage: edit ? costPerSourceImage(model) : null,
    referenceCaps: edit && REFERENCE_CAPS[model] ? { ...REFERENCE_CAPS[model] } : null,
  };
}

export function modelRules(): ModelRules {
  return {
    generate: Object.entries(GENERATE_MODELS).map(([m, r]) => view(m, r, false)),
    edit: Object.entries(EDIT_MODELS).map(([m, r]) => view(m, r, true)),
    editAliases: { ...EDIT_ALIASES },
    defaultGenerateModel: DEFAULT_GENERATE_MODEL,
    defaultEditModel: DEFAULT_EDIT_MODEL,
    imageSizes: [...IMAGE_SIZES],
    maxControlColors: MAX_CONTROL_COLORS,
    megapixelRatio: { ...MEGAPIXEL_RATIO },
    lipsyncResolutions: [...LIPSYNC_RESOLUTIONS],
    lipsyncAudio: ruleExtensions('audio'),
    lipsyncVideo: ruleExtensions('video'),
    lipsyncImage: ruleExtensions('image'),
    lipsyncAdvice: [
      'A clear voice without music or heavy noise.',
      'The mouth visible and lit; moderate head motion.',
      'Medium or shoulder-up framing; for a portrait one face, front or near-front, even light, little occlusion.',
    ],
    unspecified: [
      'Style values for models other than flux are not documented; external models ignore style.',
      'The weight field of a control colour and the format of background_color are not documented (sent as {rgb, weight}).',
      'The unit of the ETA the service reports is not documented.',
      'Face swap: method, fields and response are not in the interface; Tagsmith follows the vendor OpenAPI (multipart source + target at /v1/imageswap, falling back to /v1/imageswap/create either way; /v1/imageswap/status, /v1/imageswap/terminate).',
      'Video face swap: the interface names it without an endpoint; Tagsmith uses the vendor OpenAPI\'s /v1/videoswap/create, /status and /terminate, and runs it one at a time like face swap.',
      'Image vectorize: fields, options and answer are not in the interface; Tagsmith sends image_url as a data URI as the vendor OpenAPI describes.',
      'How long the service keeps result files is not documented; queued inputs are deleted within 24 hours.',
      'Prices per model are not published in the interface.',
      `Quality values: ${GPT_QUALITIES.join(', ')} for gpt-image-2; sunburst adds xhigh and max; 'auto' is unsupported.`,
    ],
  };
}
