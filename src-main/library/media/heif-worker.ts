import { parentPort } from 'node:worker_threads';
import { captureLibheifMessages, decodeHeif, heifSize, heifThumbnail } from './heif-decode';
import { HeifDecodeError, type HeifPixels } from './heif-types';

// The worker thread that decodes HEIC/HEIF pictures (heif.ts starts it and sends the work):
// libheif's WebAssembly decodes synchronously, so here it never blocks the main thread. The
// full-size pixels go back by transfer (no copy).

export interface HeifRequest {
  id: number;
  op: 'decode' | 'size' | 'thumbnail';
  buf: Uint8Array;
  maxPixels: number;
  /** 'decode': the side of the square box the caller shrinks the picture into (0: full size). */
  fitInside?: number;
}

export type HeifReply =
  | { id: number; pixels: HeifPixels | null }
  | { id: number; size: { width: number; height: number } }
  | { id: number; error: string; decodeError: boolean };

captureLibheifMessages();

const port = parentPort;
port?.on('message', (req: HeifRequest) => {
  const buf = Buffer.from(req.buf.buffer, req.buf.byteOffset, req.buf.byteLength);
  const answer = async (): Promise<void> => {
    try {
      if (req.op === 'size') {
        port.postMessage({ id: req.id, size: await heifSize(buf) } satisfies HeifReply);
        return;
      }
      const pixels = req.op === 'decode' ? await decodeHeif(buf, req.maxPixels, req.fitInside ?? 0) : await heifThumbnail(buf);
      // A full-size picture is moved, not copied; a small one (a shrunk thumbnail, whose memory
      // sharp owns) is cloned.
      const d = pixels?.data;
      const own = d && d.byteOffset === 0 && d.byteLength === d.buffer.byteLength && d.byteLength > 1 << 20;
      const transfer = own ? [d.buffer as ArrayBuffer] : [];
      port.postMessage({ id: req.id, pixels } satisfies HeifReply, transfer);
    } catch (err) {
      port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err), decodeError: err instanceof HeifDecodeError } satisfies HeifReply);
    }
  };
  void answer();
});
