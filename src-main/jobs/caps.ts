// Caps on billed calls and spend (per day, per month): checked before each billed request
// leaves, and estimated for a whole batch before it is queued.
import { ManySet, pace } from '../core/steps';
import { ServiceError } from '../service/errors';
import type { JobDescription } from './job-handler';
import type { JobStore } from './store';
import type { StudioCaps, UsageRow } from './shared-account';
import type { BatchPreview, QueueCaps, UsageSummary } from './types';

/** A billed call that would cross a cap: the queue holds billed work. */
export class CapReached extends Error {}

type Usage = UsageSummary;

/**
 * Where the caps and billed counts come from: this machine's (its JobStore), or, for a machine
 * that shares its account (a studio), the account's together (`shared`).
 */
export interface Accounting {
  caps(): QueueCaps;
  usage(): UsageSummary;
  /** set when the caps are the shared account's (an admin sets them, not this user) */
  shared?: boolean;
}

/** This machine's counts plus the other machines' of the same month: the account's total. */
export function addUsage(own: UsageSummary, others: readonly UsageRow[]): UsageSummary {
  const out: UsageSummary = { ...own, byModelToday: { ...own.byModelToday }, byModelMonth: { ...own.byModelMonth } };
  for (const r of others) {
    if (!r.day.startsWith(own.month)) continue;
    out.thisMonth += r.calls;
    out.byModelMonth[r.billingKey] = (out.byModelMonth[r.billingKey] ?? 0) + r.calls;
    if (r.day === own.day) {
      out.today += r.calls;
      out.byModelToday[r.billingKey] = (out.byModelToday[r.billingKey] ?? 0) + r.calls;
    }
  }
  return out;
}

/** The caps that apply when the account's are set: its counts and spend caps, this machine's prices and ceiling. */
export function withSharedCaps(own: QueueCaps, shared: StudioCaps): QueueCaps {
  return { ...own, dailyCalls: shared.dailyCalls ?? null, monthlyCalls: shared.monthlyCalls ?? null, dailySpend: shared.dailySpend ?? null, monthlySpend: shared.monthlySpend ?? null };
}

export function spendSoFar(store: Accounting, usage: Usage): { today: number; month: number } {
  const prices = store.caps().pricePerCall ?? {};
  const sum = (m: Record<string, number>) => Object.entries(m).reduce((a, [k, n]) => a + n * (prices[k] ?? 0), 0);
  return { today: sum(usage.byModelToday), month: sum(usage.byModelMonth) };
}

/** Throws CapReached when one more billed call (beyond `reserved` already on their way) would cross a cap. */
export function checkCaps(store: Accounting, reserved: number, billing: string): void {
  const caps = store.caps();
  const usage = store.usage();
  const next = reserved + 1;
  let msg: string | null = null;
  // A studio's caps are its admin's: say so, and who can raise them.
  const whose = store.shared ? 'the studio’s' : 'your';
  const raise = store.shared ? 'Ask the studio’s admin to raise it (tagsmith studio caps)' : null;
  if (caps.dailyCalls != null && usage.today + next > caps.dailyCalls) {
    msg = `Paused before crossing ${whose} daily cap of ${caps.dailyCalls} billed calls (${usage.today} used today${store.shared ? ' by the whole studio' : ''}). ${raise ?? 'Raise the cap in Settings'} or resume tomorrow.`;
  } else if (caps.monthlyCalls != null && usage.thisMonth + next > caps.monthlyCalls) {
    msg = `Paused before crossing ${whose} monthly cap of ${caps.monthlyCalls} billed calls (${usage.thisMonth} used this month${store.shared ? ' by the whole studio' : ''}). ${raise ?? 'Raise the cap in Settings'} to go on.`;
  } else {
    const price = caps.pricePerCall?.[billing];
    if (price !== undefined) {
      const spend = spendSoFar(store, usage);
      if (caps.dailySpend != null && spend.today + price * next > caps.dailySpend) msg = `Paused before crossing ${whose} daily spend cap of ${caps.dailySpend}. ${raise ?? 'Raise it in Settings'} or resume tomorrow.`;
      else if (caps.monthlySpend != null && spend.month + price * next > caps.monthlySpend) msg = `Paused before crossing ${whose} monthly spend cap of ${caps.monthlySpend}. ${raise ?? 'Raise it in Settings'} to go on.`;
    }
  }
  if (msg) throw new CapReached(msg);
}

/**
 * How many billable calls these jobs would make (cache hits and in-batch duplicates excluded)
 * and whether they fit the caps. In steps: a run over a library of a million photos looks a
 * million answers up in the result cache (2.9 s in one piece before).
 */
export async function previewBatch(
  store: Accounting & Pick<JobStore, 'cacheHas'>,
  count: number,
  describe: (i: number) => JobDescription,
  /** Called with each page of descriptions before it is counted (a studio member fetches the studio's results for them here). */
  beforePage?: (page: readonly JobDescription[]) => Promise<void>,
): Promise<BatchPreview> {
  const PAGE = 500;
  const next = pace();
  const seen = new ManySet<string>();
  const byModel: Record<string, number> = {};
  let cached = 0;
  let duplicates = 0;
  let billable = 0;
  // A page at a time, each described once: a million descriptions alive at once would cost
  // the main thread major garbage collections.
  for (let start = 0; start < count; start += PAGE) {
    const page: JobDescription[] = [];
    for (let i = start; i < Math.min(count, start + PAGE); i++) page.push(describe(i));
    if (beforePage) await beforePage(page);
    for (const d of page) {
      await next();
      if (d.cacheKey) {
        if (store.cacheHas(d.cacheKey)) { cached++; continue; }
        if (seen.has(d.cacheKey)) { duplicates++; continue; }
        seen.add(d.cacheKey);
      }
      if (d.billingKey) {
        billable++;
        byModel[d.billingKey] = (byModel[d.billingKey] ?? 0) + 1;
      }
    }
  }
  const caps = store.caps();
  const usage = store.usage();
  const prices = caps.pricePerCall ?? {};
  const priced = Object.keys(byModel).every((k) => typeof prices[k] === 'number');
  const estimatedCost = priced ? Object.entries(byModel).reduce((a, [k, n]) => a + n * prices[k], 0) : null;
  const remToday = caps.dailyCalls != null ? Math.max(0, caps.dailyCalls - usage.today) : null;
  const remMonth = caps.monthlyCalls != null ? Math.max(0, caps.monthlyCalls - usage.thisMonth) : null;
  const problems: string[] = [];
  if (remToday !== null && billable > remToday) problems.push(`today's cap leaves ${remToday} billed calls`);
  if (remMonth !== null && billable > remMonth) problems.push(`this month's cap leaves ${remMonth} billed calls`);
  const spend = spendSoFar(store, usage);
  if (estimatedCost !== null && caps.dailySpend != null && spend.today + estimatedCost > caps.dailySpend) problems.push(`today's spend cap of ${caps.dailySpend} would be crossed`);
  if (estimatedCost !== null && caps.monthlySpend != null && spend.month + estimatedCost > caps.monthlySpend) problems.push(`this month's spend cap of ${caps.monthlySpend} would be crossed`);
  const cost = estimatedCost === null ? '' : ` (about ${Math.round(estimatedCost * 100) / 100} at your prices)`;
  const message = problems.length
    ? `${billable} billed calls${cost}, but ${problems.join(' and ')}: the batch will pause at the cap.`
    : `${billable} billed calls${cost}; ${cached} already analysed${duplicates ? `, ${duplicates} duplicates` : ''} cost nothing.`;
  return { jobs: count, billable, cached, duplicates, byModel, estimatedCost, remaining: { today: remToday, thisMonth: remMonth }, fitsCaps: problems.length === 0, message };
}

/** Caps are numbers of 0 or more (or empty for no cap); prices numbers of 0 or more. */
export function validateCaps(caps: QueueCaps): void {
  const ceiling = caps.accountRatePerSecond;
  if (ceiling !== null && ceiling !== undefined && (typeof ceiling !== 'number' || !(ceiling > 0) || ceiling > 30)) {
    throw new ServiceError('invalid_input', 'accountRatePerSecond: requests per second for the whole account, more than 0 and at most 30 (the interface\'s highest limit), or empty for off', { local: true, field: 'accountRatePerSecond' });
  }
  for (const [k, v] of Object.entries(caps)) {
    if (k === 'pricePerCall') {
      for (const [m, p] of Object.entries((v as Record<string, number>) ?? {})) {
        if (typeof p !== 'number' || !(p >= 0)) throw new ServiceError('invalid_input', `pricePerCall.${m}: must be a number of 0 or more`, { local: true, field: `pricePerCall.${m}` });
      }
    } else if (v !== null && v !== undefined && (typeof v !== 'number' || !(v >= 0))) {
      throw new ServiceError('invalid_input', `${k}: must be a number of 0 or more, or empty for no cap`, { local: true, field: k });
    }
  }
}
