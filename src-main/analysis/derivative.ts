import { pictureSize } from '../library/media/decode';
import { ANALYSIS_MAX_LONG_SIDE, ANALYSIS_SHORT_SIDE } from '../service/prepare';

// The service's face boxes are in pixels of the uploaded derivative (service/prepare.ts:
// EXIF-rotated, ~300 px on the short side, long side capped). Its size follows from the
// original's size and orientation, so it is known before the upload and stored with the run;
// the boxes are then divided by it to become fractions of the displayed picture.
// Mirrors prepareImage's sizing for every endpoint but qualityUgc (which may grow the copy);
// tests/integration/faces.test.ts checks that the two agree.

export interface Size {
  width: number;
  height: number;
}

export function derivativeSizeOf(displayed: Size): Size {
  const short = Math.min(displayed.width, displayed.height);
  const long = Math.max(displayed.width, displayed.height);
  const scale = Math.min(1, ANALYSIS_SHORT_SIDE / short, Math.max(ANALYSIS_MAX_LONG_SIDE, ANALYSIS_SHORT_SIDE * 4) / long);
  return { width: Math.max(1, Math.round(displayed.width * scale)), height: Math.max(1, Math.round(displayed.height * scale)) };
}

/** The derivative's size for a file (header read only), or null when it cannot be read. */
export async function derivativeSize(file: string): Promise<Size | null> {
  const displayed = await pictureSize(file);
  return displayed ? derivativeSizeOf(displayed) : null;
}
