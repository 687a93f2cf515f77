import type { TaskEndpoint } from '../jobs/handlers';
import { getAssetRow } from '../library/assets';
import type { LibraryCtx } from '../library/context';
import { probe } from '../library/video';
import type { ResolvedMedia } from './media';

// How long a creative task may take at the service before it shows as "taking unusually
// long" (issue 15). The interface's typical times: text-to-speech about 1 minute per minute of
// audio or less, lipsync about 10 minutes per minute of video; for the rest it states none.
// The budget is three times the typical time, and never under a floor, so a busy service
// queue does not raise the alarm at once. Nothing is cancelled by it: the user decides.

const MIN = 60_000;
/** speech runs at roughly 15 characters a second (150 words a minute) */
const SPEECH_CHARS_PER_MINUTE = 900;
const FACTOR = 3;
const FLOOR_MS = 10 * MIN;
/** where the interface states no typical time (generation, editing, face swap, vectorize) */
const UNSTATED_MS = 10 * MIN;

export interface BudgetInput {
  speechChars?: number;
  /** seconds of the video (lipsync, video face swap) or of the speech (image lipsync) */
  mediaS?: number | null;
}

export function budgetFor(endpoint: TaskEndpoint, x: BudgetInput = {}): number {
  switch (endpoint) {
    case 'tts':
    case 'ttsCreateJson': {
      const audioMin = (x.speechChars ?? SPEECH_CHARS_PER_MINUTE) / SPEECH_CHARS_PER_MINUTE;
      return Math.max(FLOOR_MS, Math.round(FACTOR * audioMin * MIN));
    }
    case 'videoLipsync':
    case 'imageLipsync':
    case 'videoFaceSwap': {
      const videoMin = (x.mediaS ?? 60) / 60;
      return Math.max(FLOOR_MS, Math.round(FACTOR * 10 * videoMin * MIN));
    }
    default:
      return UNSTATED_MS;
  }
}

/** Seconds of a medium: the library's record, else a probe; null when neither knows. */
export async function durationOf(ctx: LibraryCtx, m: ResolvedMedia): Promise<number | null> {
  if (m.assetId !== null) {
    const d = getAssetRow(ctx, m.assetId)?.duration_s;
    if (d !== null && d !== undefined) return d;
  }
  try {
    return (await probe(m.path)).durationS ?? null;
  } catch {
    return null;
  }
}
