// Batch rename templates (issue 16): `{name}`, `{date:FORMAT}`, `{seq:N}`, `{camera}`, `{title}`;
// any other text is literal. A template is parsed once, then filled per shot (a RAW and its
// JPEG are one shot and get one name). The original extension is added by the caller.

export interface TemplateValues {
  /** The original file name without its extension. */
  name: string;
  /** Camera-local capture date/time as stored ('YYYY-MM-DDTHH:MM:SS...'), or null. */
  takenAt: string | null;
  camera: string | null;
  title: string | null;
  /** The shot's sequence number. */
  seq: number;
}

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'name' | 'camera' | 'title' }
  | { kind: 'date'; format: string }
  | { kind: 'seq'; digits: number };

export interface ParsedTemplate {
  parts: Part[];
  usesDate: boolean;
}

/** The tokens, as `rename --help` and the dialog list them. */
export const RENAME_TOKENS: readonly { token: string; meaning: string }[] = [
  { token: '{name}', meaning: 'the original file name without its extension' },
  { token: '{date:YYYYMMDD-HHmmss}', meaning: 'the capture date/time (YYYY YY MM DD HH mm ss; {date} alone is YYYYMMDD)' },
  { token: '{seq:4}', meaning: 'a sequence number zero-padded to 4 digits, from --start (default 1)' },
  { token: '{camera}', meaning: 'the camera model' },
  { token: '{title}', meaning: 'the title' },
];

const DEFAULT_DATE = 'YYYYMMDD';
const DATE_PARTS = /YYYY|YY|MM|DD|HH|mm|ss/g;
/** Characters no file name may hold on Windows, macOS or Linux (and control characters). */
// eslint-disable-next-line no-control-regex
const ILLEGAL = /[/\\:*?"<>|\u0000-\u001f\u007f]/g;

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const describeChar = (c: string): string => (c.charCodeAt(0) < 32 || c === '\u007f' ? `a control character (U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()})` : `“${c}”`);

function checkLiteral(text: string, where: string): void {
  const bad = text.match(ILLEGAL);
  if (bad) {
    const chars = [...new Set(bad)].map(describeChar).join(', ');
    throw new TemplateError(`${where} holds ${chars}, which a file name cannot contain. Remove ${bad.length === 1 ? 'it' : 'them'} from the template.`);
  }
}

/** Parse a template; a TemplateError says exactly what is wrong with it. */
export function parseTemplate(template: string): ParsedTemplate {
  const text = template.normalize('NFC');
  if (!text.trim()) throw new TemplateError('The template is empty. Type a name pattern, e.g. {date:YYYYMMDD}-{seq:4}.');
  const parts: Part[] = [];
  let usesDate = false;
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    const close = text.indexOf('}', i);
    if (close !== -1 && (open === -1 || close < open)) throw new TemplateError(`The template has a “}” without its “{” (at character ${close + 1}).`);
    if (open === -1) {
      parts.push({ kind: 'text', text: text.slice(i) });
      break;
    }
    if (open > i) parts.push({ kind: 'text', text: text.slice(i, open) });
    const end = text.indexOf('}', open);
    if (end === -1) throw new TemplateError(`The template has a “{” that is never closed (at character ${open + 1}).`);
    const inner = text.slice(open + 1, end);
    if (inner.includes('{')) throw new TemplateError(`The template has a “{” inside a token (at character ${open + 1}).`);
    parts.push(parseToken(inner));
    if (inner === 'date' || inner.startsWith('date:')) usesDate = true;
    i = end + 1;
  }
  for (const p of parts) if (p.kind === 'text') checkLiteral(p.text, 'The template');
  return { parts, usesDate };
}

function parseToken(inner: string): Part {
  const [head, ...rest] = inner.split(':');
  const arg = rest.length ? rest.join(':') : null;
  switch (head) {
    case 'name':
    case 'camera':
    case 'title':
      if (arg !== null) throw new TemplateError(`{${head}} takes no “:${arg}”.`);
      return { kind: head };
    case 'date': {
      const format = arg ?? DEFAULT_DATE;
      if (!format) throw new TemplateError('{date:} needs a format after the colon, e.g. {date:YYYYMMDD-HHmmss}.');
      if (!format.match(DATE_PARTS)) throw new TemplateError(`{date:${format}} has none of YYYY, YY, MM, DD, HH, mm, ss.`);
      checkLiteral(format.replace(DATE_PARTS, ''), `The date format “${format}”`);
      return { kind: 'date', format };
    }
    case 'seq': {
      if (arg === null) return { kind: 'seq', digits: 1 };
      if (!/^\d{1,2}$/.test(arg) || Number(arg) < 1 || Number(arg) > 12) throw new TemplateError(`{seq:${arg}}: the number of digits must be 1 to 12, e.g. {seq:4}.`);
      return { kind: 'seq', digits: Number(arg) };
    }
    default:
      throw new TemplateError(`{${inner}} is not a token. The tokens are ${RENAME_TOKENS.map((t) => t.token.replace(/:.*\}/, '…}')).join(', ')}.`);
  }
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

function formatDate(takenAt: string, format: string): string | null {
  const m = DATE_RE.exec(takenAt);
  if (!m) return null;
  const [, Y, Mo, D, H = '00', Mi = '00', S = '00'] = m;
  const map: Record<string, string> = { YYYY: Y, YY: Y.slice(2), MM: Mo, DD: D, HH: H, mm: Mi, ss: S };
  return format.replace(DATE_PARTS, (t) => map[t]);
}

export interface Filled {
  /** The new name without extension. */
  base: string;
  /** A problem that keeps this shot from being renamed, or null. */
  problem: string | null;
  /** What was changed to make a value fit a file name, or null. */
  note: string | null;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/** Fill the template for one shot. Values from the photo have illegal characters replaced by “_”. */
export function fillTemplate(t: ParsedTemplate, v: TemplateValues): Filled {
  let base = '';
  const replaced: string[] = [];
  const clean = (value: string, what: string): string => {
    const out = value.normalize('NFC').replace(ILLEGAL, '_').trim();
    if (out !== value.normalize('NFC').trim()) replaced.push(what);
    return out;
  };
  for (const p of t.parts) {
    switch (p.kind) {
      case 'text':
        base += p.text;
        break;
      case 'name':
        base += v.name;
        break;
      case 'camera':
        base += clean(v.camera ?? '', 'the camera model');
        break;
      case 'title':
        base += clean(v.title ?? '', 'the title');
        break;
      case 'seq':
        base += String(v.seq).padStart(p.digits, '0');
        break;
      case 'date': {
        const d = v.takenAt ? formatDate(v.takenAt, p.format) : null;
        if (d === null) return { base: '', problem: 'has no capture date for {date}', note: null };
        base += d;
        break;
      }
    }
  }
  const note = replaced.length ? `characters a file name cannot hold in ${replaced.join(' and ')} were replaced by “_”` : null;
  return { base, problem: baseProblem(base), note };
}

function baseProblem(base: string): string | null {
  if (!base.trim()) return 'the new name would be empty';
  if (base.startsWith('.')) return `the new name “${base}” starts with a dot, which hides the file`;
  if (WINDOWS_RESERVED.test(base)) return `“${base}” is a name Windows reserves for a device`;
  return null;
}
