// One way to write dates and money everywhere (issue 35, the glossary in the README): dates in
// the system's locale through Intl, day, month and year always in the order the locale uses;
// prices in US dollars, the currency the service quotes its prices in.

const DATE = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
const DATE_TIME = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** "3 Jan 2024" (in the system's locale and order). */
export function formatDate(when: number | string | Date): string {
  return DATE.format(new Date(when));
}

/** "3 Jan 2024, 14:05" (in the system's locale and order). */
export function formatDateTime(when: number | string | Date): string {
  return DATE_TIME.format(new Date(when));
}

const DATE_UTC = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const DATE_TIME_UTC = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** "14:05" (in the system's locale). */
export function formatTime(when: number | string | Date): string {
  return TIME.format(new Date(when));
}

/**
 * A capture date as the camera wrote it ('2024-05-31T14:03:22', its own wall clock, no zone)
 * in the same format as every other date: "31 May 2024, 14:03", or the day alone with
 * `withTime` false or when no time was recorded. Never shifted by the computer's time zone.
 */
export function formatCaptureDate(takenAt: string | null | undefined, withTime = true): string {
  if (!takenAt) return '—';
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(takenAt);
  if (!m) return takenAt;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0)));
  if (Number.isNaN(at.getTime())) return takenAt;
  return withTime && m[4] ? DATE_TIME_UTC.format(at) : DATE_UTC.format(at);
}

const USD = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const USD_SMALL = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });

/** "$0.02", "US$12.40" (as the locale writes US dollars); amounts under a dollar keep up to a third decimal. */
export function formatMoney(n: number): string {
  return n > 0 && n < 1 ? USD_SMALL.format(n) : USD.format(n);
}

/** The currency's name as the forms say it. */
export const CURRENCY = 'US dollars';

/** A keyword as the user reads it: one below others with its path (Animals › Cat), never its stored form (Animals|Cat). */
export const keywordPath = (k: string): string => k.split('|').join(' › ');
