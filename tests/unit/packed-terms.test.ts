import { describe, expect, it } from 'vitest';
import { PackedTerms } from '../../src-main/search/text-index';

// The full-text part keeps its sorted tokens packed in typed arrays (so a worker thread hands
// them over without a copy): its order and prefix tests must be exactly JavaScript's string
// order and startsWith, non-ASCII and characters beyond the BMP (surrogate pairs) included.

const TOKENS = ['', 'a', 'ab', 'abc', 'abd', 'b', 'beach', 'beaches', 'café', 'cafe', 'zz', 'ö', 'öl', 'ölig', '日本', '日本語', '\u{1F600}x', '\u{1F600}', '\uFFFD', '\uE000', 'sun', 'sunset', 'sunny'];

describe('packed tokens', () => {
  const sorted = [...new Set(TOKENS)].sort();
  const packed = PackedTerms.from(sorted);

  it('holds each token as it was given', () => {
    expect(packed.length).toBe(sorted.length);
    expect(Array.from({ length: packed.length }, (_, i) => packed.term(i))).toEqual(sorted);
  });

  it('finds the first token not before any key, and each prefix, as strings would', () => {
    const keys = [...sorted, 'aa', 'be', 'bz', 'caf', 'ö', 'o', '日', '\u{1F600}', '\uD83D', 'sun', 'su', 'zzz', '\uFFFF'];
    for (const key of keys) {
      const want = sorted.findIndex((t) => !(t < key));
      expect(packed.lowerBound(key), key).toBe(want < 0 ? sorted.length : want);
      for (let i = 0; i < sorted.length; i++) {
        expect(packed.startsWith(i, key), `${sorted[i]} ${key}`).toBe(sorted[i].startsWith(key));
        expect(Math.sign(packed.compare(i, key)), `${sorted[i]} ${key}`).toBe(sorted[i] < key ? -1 : sorted[i] > key ? 1 : 0);
      }
    }
  });

  it('is empty when built from nothing', () => {
    const none = PackedTerms.from([]);
    expect(none.length).toBe(0);
    expect(none.lowerBound('a')).toBe(0);
  });
});
