import type { AgencyIssue, AssetKind } from '../../../src-preload/contract';
import type { AgencyProfile, AgencyRow, TextRule } from './profile';

// One photo against one agency's rules: pure, so each profile's rules are tested directly.
// Only what a profile states is checked; each problem says what is wrong and what to do.

export interface CheckInput {
  /** File name with extension, as uploaded. */
  fileName: string;
  kind: AssetKind;
  width: number | null;
  height: number | null;
  sizeBytes: number;
  title: string | null;
  caption: string | null;
  /** Library keywords, in their order (hierarchies as 'A|B'). */
  keywords: readonly string[];
  categories: readonly string[];
  releases: readonly string[];
  editorial: boolean;
}

const text = (s: string | null | undefined): string => (s ?? '').normalize('NFC').trim();
const chars = (s: string): number => [...s].length;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

const leaf = (k: string): string => {
  const parts = k.split('|').map((p) => p.trim()).filter(Boolean);
  return parts[parts.length - 1] ?? '';
};

/** Keywords as agencies take them: leaves, a keyword's own commas as spaces, no repeats (case-insensitive). */
export function agencyKeywords(keywords: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of keywords) {
    const word = leaf(k).replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
    if (!word || seen.has(word.toLocaleLowerCase())) continue;
    seen.add(word.toLocaleLowerCase());
    out.push(word);
  }
  return out;
}

/**
 * The photo's keywords to take off so that at most `max` reach the agency: the first `max` in
 * the photo's order are kept (the order the user ranked them in, most important first), and
 * each later keyword that would add a word of its own is taken off (one that repeats a kept
 * word, or has none, adds nothing and stays).
 */
export function keywordsPast(keywords: readonly string[], max: number): string[] {
  const kept = new Set<string>();
  const out: string[] = [];
  for (const k of keywords) {
    const [word] = agencyKeywords([k]);
    if (!word || kept.has(word.toLocaleLowerCase())) continue;
    if (kept.size < max) kept.add(word.toLocaleLowerCase());
    else out.push(k);
  }
  return out;
}

/** What would be sent: the title an agency shows falls back to the caption, and the reverse. */
export function agencyRow(p: AgencyProfile, x: CheckInput): AgencyRow {
  const title = text(x.title);
  const caption = text(x.caption);
  return {
    filename: x.fileName,
    title: title || caption,
    description: caption || title,
    keywords: agencyKeywords(x.keywords),
    categories: p.categories ? x.categories.slice(0, p.categories.max) : [...x.categories],
    releases: [...x.releases],
    editorial: x.editorial,
    mature: false,
    illustration: false,
  };
}

const extOf = (name: string): string => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');
const mp = (n: number): string => `${(n / 1e6).toLocaleString('en', { maximumFractionDigits: 2 })} MP`;
const size = (n: number): string => (n >= 1024 * 1024 * 1024 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${(n / (1024 * 1024)).toFixed(1)} MB`);

function textProblems(name: string, field: string, edits: AgencyIssue['field'], value: string, rule: TextRule | undefined, agency: string): AgencyIssue[] {
  if (!rule) return [];
  const out: AgencyIssue[] = [];
  const n = chars(value);
  if (!value) {
    if (rule.required) out.push({ text: `No ${name}: ${agency} requires one. Add a ${field}.`, field: edits });
    return out;
  }
  if (rule.maxChars !== undefined && n > rule.maxChars) out.push({ text: `The ${name} has ${n} characters; ${agency} allows ${rule.maxChars}: shorten the ${field} by ${n - rule.maxChars}.`, field: edits });
  if (rule.minChars !== undefined && n < rule.minChars) out.push({ text: `The ${name} has ${n} characters; ${agency} wants at least ${rule.minChars}: lengthen the ${field}.`, field: edits });
  if (rule.forbidden && rule.forbidden.pattern.test(value)) {
    // The one-click fix: the same text with those characters taken out (a space where they stood between words).
    const global = new RegExp(rule.forbidden.pattern.source, rule.forbidden.pattern.flags.includes('g') ? rule.forbidden.pattern.flags : `${rule.forbidden.pattern.flags}g`);
    const fixed = value.replace(global, ' ').replace(/\s+([.!?;:])/g, '$1').replace(/\s+/g, ' ').trim();
    out.push({ text: `The ${name} contains ${rule.forbidden.what}, which ${agency} does not allow in it: remove them from the ${field}.`, field: edits, fixed: fixed || undefined, fixLabel: `Remove ${rule.forbidden.what}` });
  }
  return out;
}

/** What the agency would object to, in words a person can act on; empty when the photo passes. */
export function checkAgainst(p: AgencyProfile, x: CheckInput): string[] {
  return checkIssues(p, x).map((i) => i.text);
}

/**
 * The same problems, each with the field the user fixes it in (the inspector's Title, Caption,
 * Keywords, the agency's category; 'file' for what only another file can fix) and, where one
 * edit fixes it, the field's value after that edit.
 */
export function checkIssues(p: AgencyProfile, x: CheckInput): AgencyIssue[] {
  const issues: AgencyIssue[] = [];
  // The file's own problems (format, size, name): only another file fixes them.
  const out = {
    push: (...texts: string[]) => {
      for (const t of texts) issues.push({ text: t, field: 'file' });
    },
  };
  const who = p.name;
  const row = agencyRow(p, x);
  const ext = extOf(x.fileName);

  // The file itself.
  const formats = x.kind === 'video' ? p.videoFormats : x.kind === 'image' ? p.photoFormats : undefined;
  if (x.kind === 'audio') out.push(`${who}'s profile has no rules for audio: it is not sent.`);
  else if (formats === undefined) out.push(`${who}'s profile has no rules for ${x.kind === 'video' ? 'video' : 'this kind of file'}; check the agency's requirements yourself.`);
  else if (!formats.includes(ext)) out.push(`${who} accepts ${formats.filter((f) => f !== 'jpeg' && f !== 'tiff').map((f) => f.toUpperCase()).join(', ')} ${x.kind === 'video' ? 'videos' : 'photos'}, not .${ext || '(no extension)'}: export a copy in an accepted format.`);
  if (x.kind === 'image') {
    const w = x.width ?? 0;
    const h = x.height ?? 0;
    if (!w || !h) out.push(`The size of the picture is not known, so ${who}'s resolution rules cannot be checked: rescan the folder.`);
    else {
      const px = w * h;
      if (p.minPixels !== undefined && px < p.minPixels) out.push(`${w}×${h} is ${mp(px)}; ${who} needs at least ${mp(p.minPixels)}: send a larger original.`);
      if (p.maxPixels !== undefined && px > p.maxPixels) out.push(`${w}×${h} is ${mp(px)}; ${who} accepts at most ${mp(p.maxPixels)}: send a smaller copy.`);
      if (p.minSide !== undefined && Math.min(w, h) < p.minSide) out.push(`The short side is ${Math.min(w, h)} px; ${who} needs at least ${p.minSide} px on each side.`);
      if (p.maxSide !== undefined && Math.max(w, h) > p.maxSide) out.push(`The long side is ${Math.max(w, h)} px; ${who} accepts at most ${p.maxSide} px.`);
      if (p.minUncompressedBytes !== undefined && px * 3 < p.minUncompressedBytes) {
        out.push(`Opened, the picture is ${size(px * 3)}; ${who} needs over ${size(p.minUncompressedBytes)} (8-bit RGB): send a larger original.`);
      }
    }
  }
  if (p.maxFileBytes !== undefined && x.sizeBytes > p.maxFileBytes) out.push(`The file is ${size(x.sizeBytes)}; ${who} accepts at most ${size(p.maxFileBytes)}.`);
  if (p.minFileBytes !== undefined && x.sizeBytes < p.minFileBytes) out.push(`The file is ${size(x.sizeBytes)}; ${who} needs over ${size(p.minFileBytes)}.`);
  if (p.fileName?.maxChars !== undefined && chars(x.fileName) > p.fileName.maxChars) {
    out.push(`The file name “${x.fileName}” has ${chars(x.fileName)} characters; ${who} allows ${p.fileName.maxChars} with the extension: rename the file.`);
  }
  if (p.fileName?.forbidden && p.fileName.forbidden.pattern.test(x.fileName.slice(0, x.fileName.length - ext.length - (ext ? 1 : 0)))) {
    out.push(`The file name “${x.fileName}” contains ${p.fileName.forbidden.what}, which ${who} does not accept: rename the file.`);
  }

  // The metadata.
  const titleField = (from: 'title' | 'caption'): string => (from === 'title' ? (text(x.title) ? 'title' : 'caption (used as the title)') : text(x.caption) ? 'caption' : 'title (used as the description)');
  // Which field a text problem is fixed in: the one the agency reads, or the one standing in for it.
  const source = (from: 'title' | 'caption'): AgencyIssue['field'] => (from === 'title' ? (text(x.title) ? 'title' : text(x.caption) ? 'caption' : 'title') : text(x.caption) ? 'caption' : text(x.title) ? 'title' : 'caption');
  const add = (field: AgencyIssue['field'], t: string) => issues.push({ text: t, field });
  if (p.title) issues.push(...textProblems('title', titleField(p.title.from), source(p.title.from), p.title.from === 'title' ? row.title : row.description, p.title, who));
  if (p.description) {
    const from = p.description.from === 'caption' ? 'caption' : 'title';
    issues.push(...textProblems('description', titleField(from), source(from), p.description.from === 'caption' ? row.description : row.title, p.description, who));
  }
  const k = row.keywords.length;
  if (p.keywords?.max !== undefined && k > p.keywords.max) {
    issues.push({ text: `${plural(k, 'keyword')}, but ${who} allows at most ${p.keywords.max}: remove ${k - p.keywords.max}.`, field: 'keywords', remove: keywordsPast(x.keywords, p.keywords.max) });
  }
  if (p.keywords?.min !== undefined && k < p.keywords.min) add('keywords', `${plural(k, 'keyword')}, but ${who} needs at least ${p.keywords.min}: add ${p.keywords.min - k} more.`);
  if (p.categories) {
    const known = new Set(p.categories.list.map((c) => c.value));
    const bad = x.categories.filter((c) => !known.has(c));
    if (bad.length) add('category', `“${bad.join('”, “')}” is not one of ${who}'s categories: choose from its list.`);
    if (x.categories.length < p.categories.min) add('category', `No category: ${who} needs ${p.categories.min === p.categories.max ? p.categories.min : `${p.categories.min} to ${p.categories.max}`}. Choose one here or in the inspector's Agencies section.`);
    if (x.categories.length > p.categories.max) add('category', `${plural(x.categories.length, 'category', 'categories')}; ${who} takes at most ${p.categories.max}: only the first ${p.categories.max} are sent.`);
  }
  if (x.editorial && p.editorial?.pattern) {
    const caption = p.title?.from === 'title' ? row.title : row.description;
    if (!p.editorial.pattern.test(caption)) add(p.title?.from === 'title' ? source('title') : source('caption'), `Editorial: ${who} wants the caption as ${p.editorial.format}.`);
  }
  return issues;
}

/** The profile's rules in words (Settings, `tagsmith agencies`). */
export function describeRules(p: AgencyProfile): string[] {
  const out: string[] = [];
  if (p.photoFormats) out.push(`Photos: ${p.photoFormats.map((f) => f.toUpperCase()).join(', ')}.`);
  if (p.videoFormats) out.push(`Videos: ${p.videoFormats.map((f) => f.toUpperCase()).join(', ')}.`);
  if (p.minPixels !== undefined) out.push(`At least ${mp(p.minPixels)}.`);
  if (p.maxPixels !== undefined) out.push(`At most ${mp(p.maxPixels)}.`);
  if (p.minSide !== undefined) out.push(`At least ${p.minSide} px on each side.`);
  if (p.maxSide !== undefined) out.push(`At most ${p.maxSide} px on a side.`);
  if (p.minUncompressedBytes !== undefined) out.push(`Over ${size(p.minUncompressedBytes)} uncompressed.`);
  if (p.minFileBytes !== undefined) out.push(`File over ${size(p.minFileBytes)}.`);
  if (p.maxFileBytes !== undefined) out.push(`File at most ${size(p.maxFileBytes)}.`);
  if (p.fileName?.maxChars !== undefined) out.push(`File name at most ${p.fileName.maxChars} characters.`);
  if (p.fileName?.forbidden) out.push(`File name without ${p.fileName.forbidden.what}.`);
  const t = (label: string, r: TextRule | undefined): void => {
    if (!r) return;
    const bits = [r.required ? 'required' : 'optional'];
    if (r.minChars !== undefined) bits.push(`at least ${r.minChars} characters`);
    if (r.maxChars !== undefined) bits.push(`at most ${r.maxChars} characters`);
    if (r.forbidden) bits.push(`no ${r.forbidden.what}`);
    out.push(`${label}: ${bits.join(', ')}.`);
  };
  t('Title', p.title);
  t('Description', p.description);
  if (p.keywords) out.push(`Keywords: ${p.keywords.min ?? 0} to ${p.keywords.max ?? 'any number'}.`);
  if (p.categories) out.push(`Categories: ${p.categories.min} to ${p.categories.max} from the agency's list of ${p.categories.list.length}.`);
  if (p.editorial) out.push(`Editorial caption: ${p.editorial.format}.`);
  if (p.releases) out.push(`Releases: ${p.releases}`);
  out.push(`Upload: ${p.upload.protocols.length ? p.upload.protocols.map((x) => x.toUpperCase()).join(', ') : 'none documented'}${p.upload.host ? ` to ${p.upload.host}${p.upload.port ? `:${p.upload.port}` : ''}` : ''}. ${p.upload.note}`);
  return out;
}
