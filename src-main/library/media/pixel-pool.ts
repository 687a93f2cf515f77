import { Worker } from 'node:worker_threads';
import { fingerprintPixels, type Fingerprint, type Pixels } from '../similarity/fingerprint';
import type { PixelReply, PixelRequest } from './pixel-worker';
import { workerEntry } from '../../core/worker-entry';

// A scan's per-file work that is CPU or copying (reading and hashing a picture, the
// fingerprint of each thumbnail's pixels) runs in two worker threads (one per core of the
// smallest machines), so the main process stays free to answer the window. The workers start
// on the first job and never keep a process alive while idle. Should they be unable to start
// or stop, the work is done here instead: slower for the window, never a missing result.

const POOL_SIZE = 2;

interface Waiting {
  resolve: (r: PixelReply) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  waiting: Map<number, Waiting>;
}

const slots: (Slot | null)[] = Array.from({ length: POOL_SIZE }, () => null);
let broken = false;
let nextId = 1;

/** The pool cannot run here (its file is missing, or a worker died): the main thread does the work from now on. */
class PoolBroken extends Error {}

function startSlot(index: number): Slot {
  const entry = workerEntry(import.meta.url, { source: './pixel-worker.ts', built: 'pixel-worker.js', what: 'The picture hashing and fingerprint worker' });
  const worker = new Worker(entry.url, { eval: entry.eval });
  const slot: Slot = { worker, waiting: new Map() };
  const failAll = (why: string): void => {
    if (slots[index] === slot) slots[index] = null;
    for (const w of slot.waiting.values()) w.reject(new PoolBroken(why));
    slot.waiting.clear();
  };
  worker.on('message', (reply: PixelReply) => {
    const job = slot.waiting.get(reply.id);
    slot.waiting.delete(reply.id);
    job?.resolve(reply);
    if (slot.waiting.size === 0) worker.unref();
  });
  worker.on('error', (err) => failAll(`the scan worker stopped: ${err.message}`));
  worker.on('exit', (code) => failAll(`the scan worker stopped (exit code ${code})`));
  return slot;
}

type Request = PixelRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

function call(req: Request, transfer: ArrayBuffer[] = []): Promise<PixelReply> {
  // The least busy worker; one not started yet only when every started one is busy.
  let index = 0;
  const load = (i: number): number => slots[i]?.waiting.size ?? 0.5;
  for (let i = 1; i < POOL_SIZE; i++) if (load(i) < load(index)) index = i;
  const slot = (slots[index] ??= startSlot(index));
  slot.worker.ref(); // work in flight keeps the process alive until it answers
  const id = nextId++;
  return new Promise<PixelReply>((resolve, reject) => {
    slot.waiting.set(id, { resolve, reject });
    slot.worker.postMessage({ ...req, id } as PixelRequest, transfer);
  });
}

/** Whether the work is done in the worker threads (false once they could not run here). */
export const pixelWorkerUsable = (): boolean => !broken;

/** Fingerprint and sharpness of decoded pixels, computed off the main thread. */
export async function fingerprintOffThread(px: Pixels): Promise<Fingerprint> {
  if (!broken) {
    try {
      // Copied (a thumbnail's pixels, ~300 KB): the caller goes on encoding them.
      const reply = await call({ op: 'fingerprint', data: px.data, width: px.width, height: px.height, channels: px.channels });
      if ('fingerprint' in reply) return reply.fingerprint;
    } catch {
      broken = true;
    }
  }
  return fingerprintPixels(px);
}

export interface Digest {
  /** The whole file, or (`head`) its metadata alone: a JPEG's segments before its image data, a PNG without its image data chunks. */
  buf: Buffer;
  head: boolean;
  /** sha256 of every byte; null when it was not asked for (left to the pass after the grid). */
  hash: string | null;
}

/**
 * A picture read whole with its content hash (unless `hash` is false: then a JPEG's head
 * alone, nothing hashed), in a worker thread; null when the workers
 * cannot run here (the caller does the same on this thread). A file that cannot be read
 * rejects with the error's code (EACCES, ENOENT...) as reading it here would.
 */
export async function digestOffThread(path: string, format: string, opts: { hash: boolean } = { hash: true }): Promise<Digest | null> {
  const reply = await callOrNull({ op: 'digest', path, format, hash: opts.hash });
  if (!reply || !('digest' in reply)) return null;
  const d = reply.digest;
  return { buf: Buffer.from(d.buf.buffer, d.buf.byteOffset, d.buf.byteLength), head: d.head, hash: d.hash };
}

/**
 * The media hash of a picture on disk ('m:' + sha256 of its image data, media-hash-parts.ts),
 * read and hashed in a worker thread: null when the format has no parser or the file no image
 * data, undefined when the workers cannot run here (the caller does it on this thread).
 */
export async function mediaHashOffThread(path: string, format: string): Promise<string | null | undefined> {
  const reply = await callOrNull({ op: 'media-hash', path, format });
  return reply && 'mediaHash' in reply ? reply.mediaHash : undefined;
}

/**
 * A picture's content hash and media hash from one read, in a worker thread (mediaHash null
 * when the format has no parser or the file no image data); undefined when the workers cannot
 * run here (the caller does it on this thread).
 */
export async function hashesOffThread(path: string, format: string): Promise<{ hash: string; mediaHash: string | null } | undefined> {
  const reply = await callOrNull({ op: 'hashes', path, format });
  return reply && 'hashes' in reply ? reply.hashes : undefined;
}

/** The worker's reply, null once the workers cannot run here; a file error rejects with its code. */
async function callOrNull(req: Request): Promise<PixelReply | null> {
  if (broken) return null;
  let reply: PixelReply;
  try {
    reply = await call(req);
  } catch {
    broken = true;
    return null;
  }
  if ('error' in reply) throw Object.assign(new Error(reply.error), { code: reply.code });
  return reply;
}
