// Synchronous analysis endpoints: keywords, video keywords, captioning, faces, quality.
import { queryParam as param, type Handler, type RequestContext } from './context.js';
import { analyseImage, imageSize, sniffImage, sniffVideo, videoFrame, type Analysis } from './media.js';
import { Issues, ServiceError, isLoopbackUrl, parseBool, parseFloatStrict, parseIntStrict } from './validation.js';
import { LANGS, caseFor, scoreConcepts, translate, type Lang } from './vocabulary.js';

const DEFAULT_KEYWORDS = 12;
const MAX_KEYWORDS = 50;
const CAPTION_LENGTHS = ['short', 'normal', 'long'] as const;

/** The upload (POST field `data`) or the media behind `url` (GET, loopback only). */
async function input(ctx: RequestContext, iss: Issues): Promise<Buffer> {
  if (ctx.method === 'GET') {
    const url = ctx.query.get('url');
    if (!url) iss.missing(['query', 'url']);
    iss.throwIfAny();
    if (!isLoopbackUrl(url!)) throw new ServiceError('Could not download the file from url: the simulator fetches loopback URLs only');
    let res: Response;
    try {
      res = await fetch(url!, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      throw new ServiceError(`Could not download the file from url: ${(e as Error).message}`);
    }
    if (!res.ok) throw new ServiceError(`Could not download the file from url: HTTP ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
  const file = ctx.body.files.data;
  if (!file) iss.missing(['body', 'data']);
  iss.throwIfAny();
  return file!.data;
}

async function imageInput(ctx: RequestContext, iss: Issues): Promise<Analysis> {
  const buf = await input(ctx, iss);
  const kind = sniffImage(buf);
  if (kind !== 'jpeg' && kind !== 'png') throw new ServiceError('Unsupported image format: JPEG or PNG expected', 400);
  try {
    return await analyseImage(buf);
  } catch {
    throw new ServiceError('The image could not be decoded', 400);
  }
}

interface KeywordParams {
  count: number;
  threshold: number;
  lang: Lang;
  colors: boolean;
  numColors: number;
}

function keywordParams(ctx: RequestContext, iss: Issues, video: boolean): KeywordParams {
  const p: KeywordParams = { count: DEFAULT_KEYWORDS, threshold: 0, lang: 'en', colors: false, numColors: 5 };
  const nk = param(ctx, 'num_keywords');
  if (nk !== undefined) {
    const n = parseIntStrict(nk);
    if (n === null) iss.add(['query', 'num_keywords'], 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer', nk);
    else if (n <= 0) iss.add(['query', 'num_keywords'], 'greater_than', 'Input should be greater than 0', nk, { gt: 0 });
    else if (n >= 500) iss.add(['query', 'num_keywords'], 'less_than', 'Input should be less than 500', nk, { lt: 500 });
    else p.count = Math.min(MAX_KEYWORDS, n); // the interface: values above 50 are capped
  }
  const th = param(ctx, 'threshold');
  if (th !== undefined) {
    const t = parseFloatStrict(th);
    if (t === null) iss.add(['query', 'threshold'], 'float_parsing', 'Input should be a valid number, unable to parse string as a number', th);
    else if (t < 0) iss.add(['query', 'threshold'], 'greater_than_equal', 'Input should be greater than or equal to 0', th, { ge: 0 });
    else if (t > 1) iss.add(['query', 'threshold'], 'less_than_equal', 'Input should be less than or equal to 1', th, { le: 1 });
    else p.threshold = t;
  }
  if (video) {
    // Interface 4.3: colors and lang are not supported by video keywording.
    for (const name of ['colors', 'lang', 'num_colors']) {
      if (param(ctx, name) !== undefined) throw new ServiceError(`Parameter '${name}' is not supported for video keywording`, 400);
    }
    return p;
  }
  const lang = param(ctx, 'lang');
  if (lang !== undefined) {
    if (!(LANGS as readonly string[]).includes(lang)) iss.enum(['query', 'lang'], lang, LANGS);
    else p.lang = lang as Lang;
  }
  const colors = param(ctx, 'colors');
  if (colors !== undefined) {
    const b = parseBool(colors);
    if (b === null) iss.add(['query', 'colors'], 'bool_parsing', 'Input should be a valid boolean, unable to interpret input', colors);
    else p.colors = b;
  }
  const nc = param(ctx, 'num_colors');
  if (nc !== undefined) {
    const n = parseIntStrict(nc);
    if (n === null) iss.add(['query', 'num_colors'], 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer', nc);
    else if (n < 1) iss.add(['query', 'num_colors'], 'greater_than_equal', 'Input should be greater than or equal to 1', nc, { ge: 1 });
    else if (n > 10) iss.add(['query', 'num_colors'], 'less_than_equal', 'Input should be less than or equal to 10', nc, { le: 10 });
    else p.numColors = n;
  }
  return p;
}

function keywordList(a: Analysis, p: KeywordParams) {
  return scoreConcepts(a.features)
    .filter((c) => c.score >= p.threshold)
    .slice(0, p.count)
    .map((c) => ({ keyword: caseFor(translate(c.index, p.lang), p.lang), score: c.score }));
}

export const keywords: Handler = async (ctx) => {
  const iss = new Issues();
  const p = keywordParams(ctx, iss, false);
  const a = await imageInput(ctx, iss);
  ctx.charge('keywords');
  const body: Record<string, unknown> = { keywords: keywordList(a, p) };
  if (p.colors) body.colors = a.colors.slice(0, p.numColors);
  body.status = 'ok';
  return { status: 200, body };
};

export const videoKeywords: Handler = async (ctx) => {
  const iss = new Issues();
  const p = keywordParams(ctx, iss, true);
  const buf = await input(ctx, iss);
  if (buf.length > ctx.videoMaxBytes) throw new ServiceError('File is too large: video uploads are limited to 100 MB', 413);
  if (!sniffVideo(buf)) throw new ServiceError('Unsupported video format: MP4, MPEG, MOV or AVI expected', 400);
  let a: Analysis;
  try {
    a = await analyseImage(await videoFrame(buf), true);
  } catch {
    throw new ServiceError('The video could not be decoded', 400);
  }
  ctx.charge('video_keywords');
  return { status: 200, body: { keywords: keywordList(a, p), status: 'ok' } };
};

const FILLER = ['color', 'background', 'design', 'texture', 'light'];

export function caption(a: Analysis, len: string): string {
  const words = scoreConcepts(a.features).map((c) => c.en);
  const w = [...words, ...FILLER.filter((f) => !words.includes(f))];
  const light = a.features.luminance > 0.55 ? 'bright' : a.features.luminance < 0.35 ? 'low' : 'soft';
  if (len === 'short') return `A ${w[0]} and ${w[1]} scene`;
  if (len === 'long') {
    return `A detailed photograph showing ${w[0]} and ${w[1]}, with ${w[2]} and ${w[3]} clearly visible, ` +
      `set against a ${w[4]} background in ${light} light`;
  }
  return `A photo of ${w[0]} and ${w[1]} with ${w[2]} in ${light} light`;
}

export const captioning: Handler = async (ctx) => {
  const iss = new Issues();
  const len = param(ctx, 'caption_len') ?? 'normal';
  if (!(CAPTION_LENGTHS as readonly string[]).includes(len)) iss.enum(['query', 'caption_len'], len, CAPTION_LENGTHS);
  const a = await imageInput(ctx, iss);
  ctx.charge('image_captioning');
  // The captioning endpoint answers status: true (boolean), unlike the others.
  return { status: 200, body: { result: { caption: caption(a, len) }, status: true } };
};

export const faces: Handler = async (ctx) => {
  const iss = new Issues();
  const buf = ctx.faceBoxes === 'normalized' ? await input(ctx, iss) : null;
  const a = await imageInput(ctx, iss);
  ctx.charge('faces');
  if (ctx.faceBoxes === 'normalized' && buf) {
    // The interface does not say which unit bbox is in: this mode answers fractions of the picture.
    const size = (await imageSize(buf))!;
    const r = (v: number, d: number) => Math.round((v / d) * 10_000) / 10_000;
    const list = a.faces.map((f) => ({ ...f, bbox: [r(f.bbox[0], size.width), r(f.bbox[1], size.height), r(f.bbox[2], size.width), r(f.bbox[3], size.height)] }));
    return { status: 200, body: { faces: list, status: 'ok' } };
  }
  return { status: 200, body: { faces: a.faces, status: 'ok' } };
};

export const quality: Handler = async (ctx) => {
  const a = await imageInput(ctx, new Issues());
  ctx.charge('quality');
  return { status: 200, body: { quality: { score: a.quality }, status: 'ok' } };
};

/** Interface 4.7: boundaries belong to the upper class. */
export const ugcClass = (score: number) => Math.min(5, Math.floor(score * 5) + 1);

export const qualityUgc: Handler = async (ctx) => {
  const a = await imageInput(ctx, new Issues());
  ctx.charge('quality_ugc');
  return { status: 200, body: { quality: { score: a.qualityUgc, class: ugcClass(a.qualityUgc) }, status: 'ok' } };
};
