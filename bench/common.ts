import { execFile } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

// Shared pieces of the benchmark: the scale, timing helpers and the shape of a result.

export const run = promisify(execFile);

/** BENCH_SCALE=small shrinks every dataset 10-100x for development; the default is the real size. */
export const SMALL = (process.env.BENCH_SCALE ?? 'full') === 'small';
export const pick = <T>(full: T, small: T): T => (SMALL ? small : full);

export type Status = 'PASS' | 'FAIL' | 'INFO';

/** One figure of the report: the value, the reference measured in the same run, and the target. */
export interface Figure {
  area: string;
  name: string;
  value: number;
  unit: string;
  /** A reference measured in this run on the same data (or null when the figure stands alone). */
  reference?: { name: string; value: number; unit: string } | null;
  /** value / reference (or the way the target reads it; see `ratioNote`). */
  ratio?: number | null;
  ratioNote?: string;
  target?: string | null;
  status: Status;
  note?: string;
}

export interface AreaResult {
  area: string;
  figures: Figure[];
  /** Free text for the report: method, caveats, problems found. */
  notes: string[];
  /** Raw detail kept in report.json only. */
  detail?: unknown;
  seconds: number;
}

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
export const median = (v: number[]): number => quantile(v, 0.5);
export const p95 = (v: number[]): number => quantile(v, 0.95);
export const p99 = (v: number[]): number => quantile(v, 0.99);

export const now = (): number => performance.now();

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t = now();
  const value = await fn();
  return { ms: now() - t, value };
}

/** Run `tasks` with at most `limit` in flight; returns each task's own duration in ms, in order. */
export async function pool(limit: number, tasks: (() => Promise<unknown>)[]): Promise<{ each: number[]; wallMs: number }> {
  const each: number[] = new Array(tasks.length);
  let next = 0;
  const t0 = now();
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        const t = now();
        await tasks[i]();
        each[i] = now() - t;
      }
    }),
  );
  return { each, wallMs: now() - t0 };
}

export const round = (n: number, digits = 2): number => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);

export function machine(): Record<string, string | number> {
  const c = cpus();
  return {
    cpuModel: c[0]?.model ?? 'unknown',
    cores: c.length,
    ramGiB: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    scale: SMALL ? 'small' : 'full',
  };
}

/** A PASS/FAIL from a comparison; INFO when there is no target. */
export const check = (ok: boolean): Status => (ok ? 'PASS' : 'FAIL');

export function log(area: string, msg: string): void {
  process.stderr.write(`[bench:${area}] ${msg}\n`);
}
