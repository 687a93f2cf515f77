import { createHash, webcrypto } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

// Content hashes identify a picture independent of its name and place: they detect moves
// and renames (a new path with a vanished row's hash is the same file) and exact duplicates.

/** Files up to this size are read whole (once) and hashed in full. */
export const FULL_HASH_LIMIT = 256 * 1024 * 1024;
const SAMPLE_COUNT = 16;
const SAMPLE_SIZE = 64 * 1024;

/**
 * Full sha256 of content already in memory (the same Buffer feeds metadata and sharp).
 * WebCrypto's digest runs on libuv's thread pool, so hashing a 20 MB photo does not stall
 * the main thread the way a synchronous createHash() would.
 */
export async function hashBuffer(buf: Buffer): Promise<string> {
  const digest = await webcrypto.subtle.digest('SHA-256', buf);
  return Buffer.from(digest).toString('hex');
}

/** Full sha256 streamed from disk, for content that is not needed in memory (audio, video). */
export async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * For very large files (long videos) reading every byte on each new file would dominate a
 * scan, so the hash covers the size plus 16 evenly spaced 64 KB chunks. The 's:' prefix keeps
 * it from ever colliding with a full hash of a smaller file.
 */
export async function sampledHash(path: string, size: number): Promise<string> {
  const h = createHash('sha256');
  h.update(`size:${size};`);
  const fh = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(SAMPLE_SIZE);
    const span = Math.max(0, size - SAMPLE_SIZE);
    for (let i = 0; i < SAMPLE_COUNT; i++) {
      const pos = Math.floor((span * i) / (SAMPLE_COUNT - 1));
      const { bytesRead } = await fh.read(chunk, 0, SAMPLE_SIZE, pos);
      h.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  return 's:' + h.digest('hex');
}
