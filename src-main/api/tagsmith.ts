import { attachAnalysis } from '../analysis';
import { CreativeService } from '../creative/service';
import type { LibraryCtx } from '../library/context';
import type { Scanner } from '../library/scan';
import { FINGERPRINT_KIND, fingerprintHandler } from '../workflows/fingerprint-backfill';
import { createServiceHost, type ServiceHost, type ServiceOptions } from './service';

// The one place that assembles the app's working parts around a library: the job queue with
// every job kind registered and every collector attached (keyword and caption runs, analysis,
// creative tasks, fingerprints, metadata writes, uploads), the studio's shared service account,
// and one disposer. Electron main (through createApi) and every CLI command that runs the
// queue start here, so a job left by another run, or queued by the app while a command runs
// the queue, always meets its handler.

export interface TagsmithOptions extends ServiceOptions {
  /** the app's Scanner (one scan at a time); the CLI scans directly */
  scanner?: Scanner;
  /** the clock creative deadlines are judged by (default Date.now; end-to-end tests move it) */
  creativeNow?: () => number;
}

export interface Tagsmith extends ServiceHost {
  creative: CreativeService;
}

export function createTagsmith(ctx: LibraryCtx, opts: TagsmithOptions = {}): Tagsmith {
  // The queue starts only once every kind is registered (below).
  const service = createServiceHost(ctx, { ...opts, startQueue: false });
  const queue = service.queue;
  queue.registerHandler(FINGERPRINT_KIND, fingerprintHandler(ctx));
  const offAnalysis = attachAnalysis(ctx, queue);
  const creative = new CreativeService(ctx, queue, { client: () => service.client(), scanner: opts.scanner, now: opts.creativeNow });
  const offCreative = creative.attach();
  if (opts.startQueue !== false) queue.start();
  return {
    ...service,
    creative,
    async dispose() {
      await creative.settle();
      offCreative();
      offAnalysis();
      await service.dispose();
    },
  };
}
