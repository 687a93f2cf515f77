import { describe, expect, it } from 'vitest';
import { ClockError, MAX_COUNTER, MAX_DRIFT_MS, compare, format, parse, receive, tick, zero, type Hlc } from '../../src-main/catalogue/hlc';

// The change log's hybrid logical clock: monotonic on one device whatever its wall clock does,
// comparable across devices (ties broken by device), and the same order as text.

const T = Date.UTC(2026, 10, 27, 15, 20, 0, 0);

describe('hybrid logical clock', () => {
  it('follows the wall clock when it moves on, and counts within one millisecond', () => {
    const a = tick(zero('dev1'), T);
    expect(a).toEqual({ millis: T, counter: 0, device: 'dev1' });
    const b = tick(a, T);
    expect(b).toEqual({ millis: T, counter: 1, device: 'dev1' });
    const c = tick(b, T + 5);
    expect(c).toEqual({ millis: T + 5, counter: 0, device: 'dev1' });
    expect(compare(a, b)).toBeLessThan(0);
    expect(compare(b, c)).toBeLessThan(0);
  });

  it('never goes back when the wall clock does (a clock set back, a laptop that slept)', () => {
    let t = tick(zero('dev1'), T);
    const seen: Hlc[] = [t];
    for (const wall of [T - 60_000, T - 1, T, T - 5_000]) {
      t = tick(t, wall);
      seen.push(t);
    }
    for (let i = 1; i < seen.length; i++) expect(compare(seen[i - 1], seen[i])).toBeLessThan(0);
    expect(t.millis).toBe(T);
    expect(t.counter).toBe(4);
  });

  it('after receiving another device’s time, is later than it and than its own last time', () => {
    const mine = tick(zero('aaa'), T);
    const theirs: Hlc = { millis: T + 2_000, counter: 7, device: 'bbb' };
    const next = receive(mine, theirs, T);
    expect(compare(next, theirs)).toBeGreaterThan(0);
    expect(compare(next, mine)).toBeGreaterThan(0);
    expect(next).toEqual({ millis: T + 2_000, counter: 8, device: 'aaa' });
    // Same millisecond on both sides: the larger counter plus one.
    expect(receive({ millis: T, counter: 9, device: 'aaa' }, { millis: T, counter: 3, device: 'bbb' }, T - 10)).toEqual({ millis: T, counter: 10, device: 'aaa' });
    // The wall clock ahead of both: it wins with counter 0.
    expect(receive(mine, { millis: T + 1, counter: 3, device: 'bbb' }, T + 50)).toEqual({ millis: T + 50, counter: 0, device: 'aaa' });
  });

  it('refuses a time from a device whose clock runs far ahead, saying what to check', () => {
    const far: Hlc = { millis: T + MAX_DRIFT_MS + 1_000, counter: 0, device: 'bbb' };
    expect(() => receive(tick(zero('aaa'), T), far, T)).toThrow(ClockError);
    expect(() => receive(tick(zero('aaa'), T), far, T)).toThrow(/date and time of both computers/);
    // Within the allowed drift it is taken.
    expect(receive(tick(zero('aaa'), T), { ...far, millis: T + MAX_DRIFT_MS }, T).millis).toBe(T + MAX_DRIFT_MS);
  });

  it('refuses to overflow its counter instead of wrapping round', () => {
    const full: Hlc = { millis: T, counter: MAX_COUNTER, device: 'aaa' };
    expect(() => tick(full, T)).toThrow(ClockError);
    expect(tick(full, T + 1)).toEqual({ millis: T + 1, counter: 0, device: 'aaa' });
  });

  it('breaks a tie between devices by device, the same way everywhere', () => {
    const a: Hlc = { millis: T, counter: 3, device: 'aaa' };
    const b: Hlc = { millis: T, counter: 3, device: 'bbb' };
    expect(compare(a, b)).toBeLessThan(0);
    expect(compare(b, a)).toBeGreaterThan(0);
    expect(compare(a, { ...a })).toBe(0);
  });

  it('writes times as text that sorts like the times and reads back exactly', () => {
    const times: Hlc[] = [
      { millis: 0, counter: 0, device: 'z' },
      { millis: T, counter: 0, device: 'bbb' },
      { millis: T, counter: 1, device: 'aaa' },
      { millis: T, counter: 0x10, device: 'aaa' },
      { millis: T, counter: 0x100, device: 'aaa' },
      { millis: T + 1, counter: 0, device: '0' },
      { millis: Date.UTC(2100, 0, 1), counter: MAX_COUNTER, device: 'f00d' },
    ];
    const texts = times.map(format);
    expect(texts[1]).toBe('2026-11-27T15:20:00.000Z-0000-bbb');
    for (let i = 1; i < times.length; i++) {
      expect(compare(times[i - 1], times[i])).toBeLessThan(0);
      expect(texts[i - 1] < texts[i]).toBe(true);
    }
    for (const t of times) expect(parse(format(t))).toEqual(t);
  });

  it('refuses text that is not a time, and device ids it cannot order', () => {
    for (const bad of ['', 'yesterday', '2026-11-27T15:20:00.000Z-0000', '2026-11-27T15:20:00.000Z-00000-aaa', '2026-02-30T15:20:00.000Z-0000-aaa', '2026-11-27T15:20:00.000Z-0000-A B']) {
      expect(() => parse(bad), bad).toThrow(ClockError);
    }
    expect(() => zero('Not A Device')).toThrow(ClockError);
    expect(() => tick(zero('aaa'), Number.NaN)).toThrow(ClockError);
  });
});
