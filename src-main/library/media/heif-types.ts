// Shapes shared by the HEIF decoder (heif-decode.ts, in its worker thread) and its callers (heif.ts).

export interface HeifPixels {
  /** Interleaved RGB, or RGBA when the picture has alpha: width * height * channels bytes, file transforms (irot/imir) applied. */
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
  /** The primary picture's size (transforms applied); larger than width x height when it was shrunk or a thumbnail item stands for it. */
  picture: { width: number; height: number };
  /** Whether the pixels come from the primary picture or from a thumbnail item the file carries. */
  source: 'primary' | 'thumbnail';
}

export class HeifDecodeError extends Error {}
