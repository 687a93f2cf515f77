import { Worker } from 'node:worker_threads';
import { fingerprintPixels, type Fingerprint, type Pixels } from '../similarity/fingerprint';
import type { PixelReply, PixelRequest } from './pixel-worker';
import { workerEntry } from './worker-entry';

// Per-picture arithmetic of a scan (the fingerprint of each thumbnail's pixels) runs in one
// worker thread, so the main process stays free to answer the window. The worker starts on
// the first picture and never keeps a process alive while idle. Should it be unable to start
// or stop, the work is done here instead: slower for the window, never a missing result.

interface Waiting {
  resolve: (r: PixelReply) => void;
  reject: (e: Error) => void;
}

let worker: Worker | null = null;
let broken = false;
const waiting = new Map<number, Waiting>();
let nextId = 1;

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function startWorker(): Worker {
  const entry = workerEntry(import.meta.url, 'pixel-worker');
  const w = new Worker(entry.url, { eval: entry.eval });
  w.on('message', (reply: PixelReply) => {
    const job = waiting.get(reply.id);
    waiting.delete(reply.id);
    job?.resolve(reply);
    if (waiting.size === 0) w.unref();
  });
  w.on('error', (err) => {
    if (worker === w) worker = null;
    failAll(new Error(`the pixel worker stopped: ${err.message}`));
  });
  w.on('exit', (code) => {
    if (worker === w) worker = null;
    if (waiting.size > 0) failAll(new Error(`the pixel worker stopped (exit code ${code})`));
  });
  return w;
}

function call(req: Omit<PixelRequest, 'id'>): Promise<PixelReply> {
  worker ??= startWorker();
  const w = worker;
  w.ref(); // work in flight keeps the process alive until it answers
  const id = nextId++;
  return new Promise<PixelReply>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // Copied (a thumbnail's pixels, ~300 KB): the caller goes on encoding them.
    w.postMessage({ ...req, id } satisfies PixelRequest);
  });
}

/** Whether the work is done in the worker thread (false once it could not run here). */
export const pixelWorkerUsable = (): boolean => !broken;

/** Fingerprint and sharpness of decoded pixels, computed off the main thread. */
export async function fingerprintOffThread(px: Pixels): Promise<Fingerprint> {
  if (!broken) {
    try {
      const reply = await call({ op: 'fingerprint', data: px.data, width: px.width, height: px.height, channels: px.channels });
      if ('fingerprint' in reply) return reply.fingerprint;
    } catch {
      broken = true; // the worker could not run here: the main thread does the work from now on
    }
  }
  return fingerprintPixels(px);
}
