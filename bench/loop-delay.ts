import { monitorEventLoopDelay } from 'node:perf_hooks';
import { check, round, type Figure } from './common';

// Main-thread event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution) while a
// piece of work runs in this process, as the Electron main process would run it; beside the
// same monitor while the process idles. Issue 18's targets: p99 <= 50 ms and max <= 100 ms.

export const LOOP_P99_MS = 50;
export const LOOP_MAX_MS = 100;

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

function read(h: ReturnType<typeof monitorEventLoopDelay>): LoopDelay {
  return { p50: round(h.percentile(50) / 1e6, 1), p99: round(h.percentile(99) / 1e6, 1), max: round(h.max / 1e6, 1) };
}

/** The monitor while nothing runs, for `ms` (the reference). */
export async function idleLoopDelay(ms = 2000): Promise<LoopDelay> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await new Promise((r) => setTimeout(r, ms));
  h.disable();
  return read(h);
}

/** Until the monitor's timer has fired once: a block before that is not recorded at all. */
export const monitorStarted = (h: { enable(): boolean }, resolution: number): Promise<void> => {
  h.enable();
  return new Promise((r) => setTimeout(r, resolution * 2));
};

/**
 * The monitor while `work` runs. The monitor records a delay when its timer fires, measured
 * from its previous firing: the work starts once the timer has fired (a synchronous first
 * step would otherwise go unseen), and one more timer after the work lets it record the delay
 * of the work's last step (the work's promise settles before any timer runs again).
 */
export async function loopDelayDuring<T>(work: () => Promise<T>): Promise<{ result: T; delay: LoopDelay }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  try {
    await monitorStarted(h, 10);
    const result = await work();
    await new Promise((r) => setTimeout(r, 20));
    return { result, delay: read(h) };
  } finally {
    h.disable();
  }
}

/** The row: `name` (exactly as the issue names it), then the details; judged only when `judged`. */
export function loopFigure(area: string, name: string, details: string, d: LoopDelay, idle: LoopDelay, judged: boolean): Figure {
  return {
    area,
    name: `${name} (max ${d.max} ms, p50 ${d.p50} ms; idle max ${idle.max} ms; ${details})`,
    value: d.p99,
    unit: 'ms p99',
    reference: { name: 'same monitor, idle for 2 s (p99)', value: idle.p99, unit: 'ms' },
    ratio: round(d.p99 / Math.max(idle.p99, 0.001), 1),
    ratioNote: 'work/idle',
    target: `p99 <= ${LOOP_P99_MS} ms, max <= ${LOOP_MAX_MS} ms`,
    status: judged ? check(d.p99 <= LOOP_P99_MS && d.max <= LOOP_MAX_MS) : 'INFO',
  };
}
