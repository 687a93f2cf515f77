// How long an asynchronous task may take at the service before Tagsmith calls it "taking
// unusually long" (issue 15). The interface's typical times: text-to-speech about 1 minute per
// minute of audio or less, lipsync about 10 minutes per minute of video; for the rest it states
// none. The budget is three times the typical time, and never under a floor, so a busy service
// queue does not raise the alarm at once. Creative tasks show it with cancel / keep waiting; a
// plain 'task' job stops waiting (state 'unknown', retry polls the same task, never a new one).

const MIN = 60_000;
/** speech runs at roughly 15 characters a second (150 words a minute) */
export const SPEECH_CHARS_PER_MINUTE = 900;
const FACTOR = 3;
const FLOOR_MS = 10 * MIN;
/** where the interface states no typical time (generation, editing, face swap, vectorize) */
const UNSTATED_MS = 10 * MIN;

export interface BudgetInput {
  speechChars?: number;
  /** seconds of the video (lipsync, video face swap) or of the speech (image lipsync) */
  mediaS?: number | null;
}

/** `endpoint`: a task endpoint name (TaskEndpoint of ./handlers, which imports this file). */
export function budgetFor(endpoint: string, x: BudgetInput = {}): number {
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

/** "10 min", "2 h": a budget as the user reads it. */
export const minutesText = (ms: number): string => (ms >= 90 * 60_000 ? `${Math.round(ms / 3_600_000)} h` : `${Math.max(1, Math.round(ms / 60_000))} min`);
