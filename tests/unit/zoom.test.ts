import { describe, expect, it } from 'vitest';
import { clampCentre, FIT, offsetFor, panned, toggled } from '../../src-renderer/src/features/compare/zoom';
import { surveyColumns } from '../../src-renderer/src/features/compare/layout';

// The arithmetic behind 100 % zoom (loupe, compare, survey) and survey's layout.

describe('100 % zoom', () => {
  it('never shows past the picture edges, and centres a picture smaller than its frame', () => {
    // A 3000 px picture in a 1000 px frame: the centre stays within [1/6, 5/6].
    expect(clampCentre(0.5, 3000, 1000)).toBe(0.5);
    expect(clampCentre(0, 3000, 1000)).toBeCloseTo(1 / 6);
    expect(clampCentre(1, 3000, 1000)).toBeCloseTo(5 / 6);
    expect(clampCentre(0.1, 800, 1000)).toBe(0.5);
    expect(offsetFor(0.5, 3000, 1000)).toBe(-1000);
    expect(offsetFor(0, 3000, 1000)).toBe(0); // left edge on the frame's left
    expect(offsetFor(1, 3000, 1000)).toBe(-2000); // right edge on the frame's right
    expect(offsetFor(0.3, 800, 1000)).toBe(100); // centred
  });

  it('toggles to 100 % on the clicked point and back to fit keeping the place', () => {
    const z = toggled(FIT, { x: 0.25, y: 0.8 });
    expect(z).toEqual({ on: true, x: 0.25, y: 0.8 });
    expect(toggled(z)).toEqual({ on: false, x: 0.25, y: 0.8 });
    expect(toggled(toggled(z))).toEqual(z); // Z again returns to the same place
    expect(toggled(FIT, { x: -0.2, y: 1.4 })).toEqual({ on: true, x: 0, y: 1 });
  });

  it('pans by a fraction of the picture and stops at its edges', () => {
    expect(panned({ on: true, x: 0.5, y: 0.5 }, 0.125, -0.125)).toEqual({ on: true, x: 0.625, y: 0.375 });
    expect(panned({ on: true, x: 0.95, y: 0.02 }, 0.125, -0.125)).toEqual({ on: true, x: 1, y: 0 });
  });
});

describe('survey layout', () => {
  it('chooses the columns that give the biggest pictures', () => {
    expect(surveyColumns(1, 1200, 800)).toBe(1);
    expect(surveyColumns(2, 1200, 800)).toBe(2); // side by side in a wide window
    expect(surveyColumns(2, 600, 1000)).toBe(1); // stacked in a tall one
    expect(surveyColumns(4, 1100, 780)).toBe(2);
    expect(surveyColumns(12, 1600, 900)).toBe(4);
  });
});
