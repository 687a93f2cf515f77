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

const USD = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const USD_SMALL = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });

/** "$0.02", "US$12.40" (as the locale writes US dollars); amounts under a dollar keep up to a third decimal. */
export function formatMoney(n: number): string {
  return n > 0 && n < 1 ? USD_SMALL.format(n) : USD.format(n);
}

/** The currency's name as the forms say it. */
export const CURRENCY = 'US dollars';
