// Survey's layout: how many columns give the biggest pictures.

/** Height of a frame's strip (name, flag, stars, label) and the gap between frames, px. */
const STRIP = 30;
export const SURVEY_GAP = 8;

/** Columns that give the biggest pictures (taken as 3:2) for n frames in a w x h area. */
export function surveyColumns(n: number, w: number, h: number): number {
  let best = 1;
  let bestScale = 0;
  for (let cols = 1; cols <= Math.max(1, n); cols++) {
    const rows = Math.ceil(n / cols);
    const cw = (w - SURVEY_GAP * (cols - 1)) / cols;
    const ch = (h - SURVEY_GAP * (rows - 1)) / rows - STRIP;
    const scale = Math.min(cw / 1.5, ch);
    if (scale > bestScale) {
      bestScale = scale;
      best = cols;
    }
  }
  return best;
}
