// A hybrid logical clock (Kulkarni et al.; the shape Actual Budget's packages/crdt uses): a
// time is wall-clock milliseconds, a counter that orders events within one millisecond (or
// while the wall clock stands still or goes back), and the device that made it. Every time a
// device makes is later than every time it made or received before, whatever its wall clock
// does; two devices' times compare the same way on every machine, ties broken by device. The
// change log stamps each change with one, so "the latest edit of a field wins" means the same
// thing on every replica.

/** One time of the clock. */
export interface Hlc {
  /** Wall-clock milliseconds since 1970 (never less than any earlier time's). */
  millis: number;
  /** Orders times within one millisecond: 0..MAX_COUNTER. */
  counter: number;
  /** The device that made the time: lower-case letters and digits, 1..32 of them. */
  device: string;
}

/** The largest counter: 65,535 events in one millisecond of one device. */
export const MAX_COUNTER = 0xffff;
/** How far a time received from another device may run ahead of this machine's clock. */
export const MAX_DRIFT_MS = 5 * 60_000;

const DEVICE = /^[0-9a-z]{1,32}$/;
// 2026-11-27T15:20:00.000Z-002a-0f3c9a1b2c3d4e5f: ISO time (sortable as text for years 1970-9999),
// counter in four hex digits, device.
const TEXT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)-([0-9a-f]{4})-([0-9a-z]{1,32})$/;
const LAST_MILLIS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A clock that cannot give a valid time: the counter ran out, or another device's clock is far ahead. */
export class ClockError extends Error {}

function check(t: Hlc): Hlc {
  if (!Number.isInteger(t.millis) || t.millis < 0 || t.millis > LAST_MILLIS) throw new ClockError(`A clock time is out of range: ${t.millis} ms.`);
  if (!Number.isInteger(t.counter) || t.counter < 0 || t.counter > MAX_COUNTER) throw new ClockError(`A clock counter is out of range: ${t.counter}.`);
  if (!DEVICE.test(t.device)) throw new ClockError(`Not a device id: “${t.device}”.`);
  return t;
}

/** The time before any other of this device (a new library's clock starts here). */
export const zero = (device: string): Hlc => check({ millis: 0, counter: 0, device });

/**
 * The time of a new event on this device: the wall clock when it is ahead of the last time,
 * else the last time's millisecond with the next counter (the wall clock went back or stood
 * still). Throws ClockError when the counter would run out.
 */
export function tick(last: Hlc, wallMs: number): Hlc {
  const millis = Math.max(last.millis, Math.floor(wallMs));
  const counter = millis === last.millis ? last.counter + 1 : 0;
  if (counter > MAX_COUNTER) throw new ClockError('More than 65,535 changes in one millisecond: the clock cannot order them.');
  return check({ millis, counter, device: last.device });
}

/**
 * This device's time after receiving `remote` (another device's change): later than both the
 * last local time and the remote one. A remote time more than MAX_DRIFT_MS ahead of the wall
 * clock is refused (ClockError): taking it would drag every later edit of this device into the
 * future.
 */
export function receive(last: Hlc, remote: Hlc, wallMs: number): Hlc {
  check(remote);
  const wall = Math.floor(wallMs);
  if (remote.millis - wall > MAX_DRIFT_MS) {
    throw new ClockError(`A change from device ${remote.device} is dated ${Math.round((remote.millis - wall) / 1000)} s ahead of this computer's clock. Check the date and time of both computers.`);
  }
  const millis = Math.max(last.millis, remote.millis, wall);
  const counter =
    millis === last.millis && millis === remote.millis
      ? Math.max(last.counter, remote.counter) + 1
      : millis === last.millis
        ? last.counter + 1
        : millis === remote.millis
          ? remote.counter + 1
          : 0;
  if (counter > MAX_COUNTER) throw new ClockError('More than 65,535 changes in one millisecond: the clock cannot order them.');
  return check({ millis, counter, device: last.device });
}

/** Order of two times: by millisecond, then counter, then device (so no two devices' times are equal). */
export function compare(a: Hlc, b: Hlc): number {
  return a.millis - b.millis || a.counter - b.counter || (a.device < b.device ? -1 : a.device > b.device ? 1 : 0);
}

/** A time as text; texts of times sort as the times do (compare). */
export function format(t: Hlc): string {
  check(t);
  return `${new Date(t.millis).toISOString()}-${t.counter.toString(16).padStart(4, '0')}-${t.device}`;
}

/** A time from its text (format's); throws ClockError on anything else. */
export function parse(text: string): Hlc {
  const m = TEXT.exec(text);
  if (!m) throw new ClockError(`Not a clock time: “${text}”.`);
  const millis = Date.parse(m[1]);
  if (Number.isNaN(millis) || new Date(millis).toISOString() !== m[1]) throw new ClockError(`Not a clock time: “${text}”.`);
  return check({ millis, counter: parseInt(m[2], 16), device: m[3] });
}
