import { parentPort } from 'node:worker_threads';
import { fingerprintPixels, type Fingerprint } from '../similarity/fingerprint';

// The worker thread that computes the perceptual fingerprint of a thumbnail's pixels
// (pixel-pool.ts starts it and sends the work): ~10 ms of arithmetic per picture that would
// otherwise stall the main thread once per file during a scan.

export interface PixelRequest {
  id: number;
  op: 'fingerprint';
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export type PixelReply = { id: number; fingerprint: Fingerprint } | { id: number; error: string };

const port = parentPort;
port?.on('message', (req: PixelRequest) => {
  try {
    const fingerprint = fingerprintPixels({ data: req.data, width: req.width, height: req.height, channels: req.channels });
    port.postMessage({ id: req.id, fingerprint } satisfies PixelReply);
  } catch (err) {
    port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies PixelReply);
  }
});
