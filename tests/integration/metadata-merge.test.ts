import { describe, expect, it } from 'vitest';
import { canonicalKeywords, fileKeywordList, flattenKeywords } from '../../src-main/metadata/managed-fields';
import { truncateUtf8 } from '../../src-main/metadata/fields';
import { desiredForWrite, mergeKeywords, threeWayMerge } from '../../src-main/metadata/field-merge';

// The rescan's three-way merge (pure) and the keyword forms the writer relies on.

const base = { keywords: ['Berg', 'Schnee'], caption: 'Alt', title: 'T', rating: 2 };

describe('threeWayMerge', () => {
  it('takes a field changed only in the file from the file', () => {
    const r = threeWayMerge(base, { ...base, caption: 'Von Bridge geändert' }, base);
    expect(r.merged.caption).toBe('Von Bridge geändert');
    expect(r.fromFile).toEqual(['caption']);
    expect(r.conflicts).toEqual([]);
  });

  it('keeps a field changed only in the library', () => {
    const r = threeWayMerge(base, base, { ...base, title: 'Neu', rating: 5 });
    expect(r.merged).toMatchObject({ title: 'Neu', rating: 5 });
    expect(r.fromFile).toEqual([]);
    expect(r.conflicts).toEqual([]);
  });

  it('flags a field changed on both sides to different values and keeps the library value meanwhile', () => {
    const r = threeWayMerge(base, { ...base, caption: 'Datei' }, { ...base, caption: 'Bibliothek' });
    expect(r.conflicts).toEqual([{ field: 'caption', base: 'Alt', file: 'Datei', library: 'Bibliothek' }]);
    expect(r.merged.caption).toBe('Bibliothek');
  });

  it('is no conflict when both sides made the same change', () => {
    const r = threeWayMerge(base, { ...base, rating: 4 }, { ...base, rating: 4 });
    expect(r.conflicts).toEqual([]);
    expect(r.merged.rating).toBe(4);
  });

  it('merges keyword edits from both sides instead of dropping either', () => {
    const r = threeWayMerge(base, { ...base, keywords: ['Berg', 'Gletscher'] }, { ...base, keywords: ['Schnee', 'Berg', 'Winter'] });
    // The file removed 'Schnee' and added 'Gletscher'; the library reordered and added 'Winter'.
    expect(r.merged.keywords).toEqual(['Berg', 'Winter', 'Gletscher']);
    expect(r.conflicts).toEqual([]);
    expect(r.fromFile).toEqual(['keywords']);
  });

  it('compares keywords as the catalogue does (case-insensitive), so a casing difference is not a change', () => {
    const r = threeWayMerge(base, { ...base, keywords: ['berg', 'schnee'] }, base);
    expect(r.fromFile).toEqual([]);
    expect(r.merged.keywords).toEqual(['Berg', 'Schnee']);
  });

  it('without a recorded base, a difference is a conflict, never a silent overwrite', () => {
    const r = threeWayMerge(null, { ...base, title: 'Datei' }, base);
    expect(r.conflicts.map((c) => c.field)).toEqual(['title']);
  });

  it('leaves optional fields the library does not manage to the file', () => {
    const r = threeWayMerge({ ...base, city: 'Bonn' }, { ...base, city: 'Köln' }, base);
    expect(r.merged.city).toBe('Köln');
    expect(r.fromFile).toEqual(['city']);
  });
});

describe('keyword forms', () => {
  it('mergeKeywords appends file additions once and applies file removals', () => {
    expect(mergeKeywords(['a', 'b'], ['a', 'B', 'c'], ['b', 'a', 'd'])).toEqual(['b', 'a', 'd', 'c']);
  });

  it('flattens hierarchies into ancestors and leaf, and reads them back in the library order', () => {
    const lib = ['Places|Europe|Berlin', 'Sunset', 'Animals|Cat'];
    const flat = flattenKeywords(lib);
    expect(flat).toEqual(['Places', 'Europe', 'Berlin', 'Sunset', 'Animals', 'Cat']);
    expect(fileKeywordList(flat, ['Places|Europe|Berlin', 'Animals|Cat'])).toEqual(lib);
    expect(canonicalKeywords(['Animals|Cat', 'Cat'])).toEqual(['Animals|Cat']);
  });

  it('truncates UTF-8 at a character boundary', () => {
    expect(truncateUtf8('aéé', 4)).toBe('aé');
    expect(truncateUtf8('Ж'.repeat(40), 64)).toBe('Ж'.repeat(32));
    expect(truncateUtf8('😀😀', 5)).toBe('😀');
    expect(truncateUtf8('short', 64)).toBe('short');
  });
});

describe('desiredForWrite (what a write puts into the file as it is now)', () => {
  const file = (over: object = {}) => ({
    keywords: ['Fjord', 'Hafen'], caption: 'Im Hafen', title: 'Titel', rating: 2, rejected: false,
    headline: null, creator: 'Fotograf', copyright: null, credit: null, city: null, country: null, ...over,
  });

  it('applies only the user’s changes: added appended, removed removed, foreign keywords and untouched fields kept', () => {
    // The catalogue's last reading missed the file's XMP half ('Fjord') and its caption.
    const base = { keywords: ['Hafen', 'Boot'], caption: null, title: 'Titel', rating: 2 };
    const library = { keywords: ['Hafen', 'Neu'], caption: null, title: 'Neuer Titel', rating: 2 };
    const d = desiredForWrite(base, file({ keywords: ['Fjord', 'Hafen', 'Boot'] }), library);
    expect(d.keywords).toEqual(['Fjord', 'Hafen', 'Neu']);
    expect(d.caption).toBe('Im Hafen');
    expect(d.title).toBe('Neuer Titel');
    expect(d.rating).toBe(2);
  });

  it('keeps a target without a value without one when the user did not set it (the value lives elsewhere)', () => {
    const base = { keywords: ['in-raw'], caption: 'CAMERA CAPTION', title: null, rating: 4 };
    const sidecar = file({ keywords: ['Sidecar'], caption: null, title: null, rating: 4 });
    const d = desiredForWrite(base, sidecar, { keywords: ['in-raw', 'Neu'], caption: 'CAMERA CAPTION', title: null, rating: 4 });
    expect(d.caption).toBeNull();
    expect(d.keywords).toEqual(['Sidecar', 'Neu']);
  });

  it('without a recorded reading, adds the library’s values and clears nothing', () => {
    const d = desiredForWrite(null, file(), { keywords: ['Neu'], caption: null, title: 'Mein Titel', rating: 0 });
    expect(d.keywords).toEqual(['Fjord', 'Hafen', 'Neu']);
    expect(d.caption).toBe('Im Hafen');
    expect(d.title).toBe('Mein Titel');
    expect(d.rating).toBe(2);
  });
});
