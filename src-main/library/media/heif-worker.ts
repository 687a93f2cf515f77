import { parentPort } from 'node:worker_threads';
import { captureLibheifMessages, decodeHeif, decodeHeifBand, heifSize, heifThumbnail, heifTiling, type BandWork, type HeifTiling } from './heif-decode';
import { HeifDecodeError, type HeifPixels } from './heif-types';

// The worker thread that decodes HEIC/HEIF pictures (heif.ts starts it and sends the work):
// libheif's WebAssembly decodes synchronously, so here it never blocks the main thread. The
// full-size pixels go back by transfer (no copy). heif.ts runs one such thread per core; the
// rows of tiles of a phone's tiled picture are shared among them ('band', into one shared canvas).

export interface HeifRequest {
  id: number;
  op: 'decode' | 'size' | 'thumbnail' | 'tiling' | 'band';
  buf: Uint8Array;
  maxPixels: number;
  /** 'decode', 'tiling': the side of the square box the caller shrinks the picture into (0: full size). */
  fitInside?: number;
  /** 'band': where the band (the rows of tiles `buf` was narrowed to) goes in the shared canvas. */
  band?: BandWork;
}

export type HeifReply =
  | { id: number; pixels: HeifPixels | null }
  | { id: number; size: { width: number; height: number } }
  | { id: number; tiling: HeifTiling | null }
  | { id: number; band: true }
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
      if (req.op === 'tiling') {
        port.postMessage({ id: req.id, tiling: await heifTiling(buf, req.maxPixels, req.fitInside ?? 0) } satisfies HeifReply);
        return;
      }
      if (req.op === 'band') {
        if (!req.band) throw new HeifDecodeError('no band was asked for');
        await decodeHeifBand(buf, req.band);
        port.postMessage({ id: req.id, band: true } satisfies HeifReply);
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
