// Shapes shared by the HEIF decoder (heif-decode.ts, in its worker thread) and its callers (heif.ts).

export interface HeifPixels {
  /** RGBA, 4 channels, width * height * 4 bytes, file transforms (irot/imir) applied. */
  data: Buffer;
  width: number;
  height: number;
}

export class HeifDecodeError extends Error {}
