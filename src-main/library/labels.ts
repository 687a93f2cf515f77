import type { ColorLabel } from '../../src-preload/contract';

// Colour labels as Lightroom keeps them: five colours, written into files as XMP xmp:Label
// with Lightroom's English names. The catalogue's color_label holds the text as read from a
// file (or Lightroom's name when set here); any other text (another program's label set, say
// "Approved") is kept as it is and is neither one of the five nor "no label".

export const COLOR_LABELS: readonly ColorLabel[] = ['red', 'yellow', 'green', 'blue', 'purple'];

/** Lightroom's names, exactly as it writes them into xmp:Label. */
export const LABEL_NAMES: Readonly<Record<ColorLabel, string>> = { red: 'Red', yellow: 'Yellow', green: 'Green', blue: 'Blue', purple: 'Purple' };

export const isColorLabel = (s: string): s is ColorLabel => (COLOR_LABELS as readonly string[]).includes(s);

/** The stored label text as one of the five (case-insensitive, trimmed), else null. */
export function labelOf(text: string | null | undefined): ColorLabel | null {
  const t = (text ?? '').trim().toLowerCase();
  return isColorLabel(t) ? t : null;
}

/** Whether stored label text means "no label". */
export const isNoLabel = (text: string | null | undefined): boolean => (text ?? '').trim() === '';

/** 0 no label, 1..5 the five in order, 6 any other text (the catalogue index packs this in 3 bits). */
export function labelCode(text: string | null | undefined): number {
  if (isNoLabel(text)) return 0;
  const l = labelOf(text);
  return l ? COLOR_LABELS.indexOf(l) + 1 : 6;
}

/** What `search --label` / SearchQuery.label asks for, as a code (see labelCode). */
export const wantedLabelCode = (label: ColorLabel | 'none'): number => (label === 'none' ? 0 : COLOR_LABELS.indexOf(label) + 1);
