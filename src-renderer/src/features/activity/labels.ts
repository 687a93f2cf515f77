import type { AgencyId, BatchView, HoldReason, JobState, LaneView } from '../../../../src-preload/contract';

// Words a photographer reads instead of the queue's internal names.

const LANES: Record<string, string> = {
  keywords: 'Keywords',
  videoKeywords: 'Video keywords',
  caption: 'Captions',
  faces: 'Faces',
  quality: 'Quality',
  qualityUgc: 'Quality (UGC)',
  tts: 'Text to speech',
  lipsync: 'Lipsync',
  imageGenerate: 'Image generation',
  imageEdit: 'Image editing',
  imageVectorize: 'Vectorize',
  faceswap: 'Face swap',
  'local:fingerprints': 'Fingerprints (similar photos)',
};

// Issue 19: one upload lane per agency ('local:upload:adobe'), shown by the agency's name
// (the profiles' names in main; tests/unit/upload-lane-label.test.ts keeps the two in step).
export const AGENCY_NAMES: Record<AgencyId, string> = {
  adobe: 'Adobe Stock',
  shutterstock: 'Shutterstock',
  getty: 'Getty Images / iStock',
  alamy: 'Alamy',
  pond5: 'Pond5',
  dreamstime: 'Dreamstime',
  '123rf': '123RF',
  depositphotos: 'Depositphotos',
  freepik: 'Freepik',
};
const UPLOAD_LANE = 'local:upload:';

export const laneLabel = (name: string): string => {
  if (Object.hasOwn(LANES, name)) return LANES[name];
  if (!name.startsWith(UPLOAD_LANE)) return name;
  const id = name.slice(UPLOAD_LANE.length);
  return `Upload to ${Object.hasOwn(AGENCY_NAMES, id) ? AGENCY_NAMES[id as AgencyId] : id}`;
};

/** Billing keys as the service names its models (see the endpoint table in main). */
export const BILLING_KEYS: { key: string; label: string }[] = [
  { key: 'keywords', label: 'Keywords' },
  { key: 'image_captioning', label: 'Captions' },
  { key: 'quality', label: 'Quality' },
  { key: 'quality_ugc', label: 'Quality (UGC)' },
  { key: 'faces', label: 'Faces' },
  { key: 'video_keywords', label: 'Video keywords' },
  { key: 'tts', label: 'Text to speech' },
  { key: 'video_lipsync', label: 'Video lipsync' },
  { key: 'image_lipsync', label: 'Image lipsync' },
  { key: 'image_vectorize', label: 'Vectorize' },
  { key: 'imageswap', label: 'Face swap' },
];

export function modelLabel(key: string): string {
  const known = BILLING_KEYS.find((b) => b.key === key);
  if (known) return known.label;
  const [kind, model] = key.split(':');
  if (model && kind === 'image_generate') return `Image generation (${model})`;
  if (model && kind === 'image_edit') return `Image editing (${model})`;
  return key;
}

export const JOB_STATE_LABEL: Record<JobState, string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  unknown: 'Outcome unknown',
  paused: 'Paused',
};

export const LANE_STATE_LABEL: Record<LaneView['state'], string> = {
  idle: 'Idle',
  running: 'Running',
  paused: 'Paused',
  quota: 'Held: quota used up',
  cap: 'Held at your usage cap',
  credentials: 'Held: no credentials',
  offline: 'Service unreachable',
  user: 'Paused with everything',
};

export const HOLD_TITLE: Record<HoldReason, string> = {
  quota: 'Billed work is paused: the service quota is used up',
  cap: 'Paused at your usage cap',
  credentials: 'Waiting for credentials',
  offline: 'The service cannot be reached',
  user: 'The queue is paused',
};

export const ENDPOINT_LABEL: Record<string, string> = {
  keywords: 'Keywords',
  videoKeywords: 'Video keywords',
  caption: 'Caption',
  faces: 'Faces',
  quality: 'Quality',
  qualityUgc: 'Quality (UGC)',
  tts: 'Text to speech',
  ttsCreateJson: 'Text to speech',
  videoLipsync: 'Video lipsync',
  imageLipsync: 'Image lipsync',
  imageGenerate: 'Image generation',
  imageEdit: 'Image editing',
  imageVectorize: 'Vectorize',
  faceSwap: 'Face swap',
};

/** Work done on this computer, named by what it does (its endpoint is only 'local'). */
const LOCAL_KIND_LABEL: Record<string, string> = {
  writeMetadata: 'Write to the file',
  upload: 'Upload',
  fingerprints: 'Fingerprint (similar photos)',
};

/** What a job asks for, in words: the service's request, or the local work. */
export function requestLabel(j: { endpoint: string; kind: string }): string {
  if (Object.hasOwn(ENDPOINT_LABEL, j.endpoint)) return ENDPOINT_LABEL[j.endpoint];
  if (Object.hasOwn(LOCAL_KIND_LABEL, j.kind)) return LOCAL_KIND_LABEL[j.kind];
  return j.endpoint === 'local' ? j.kind : j.endpoint;
}

/** Where a running job is, said once (the state column already says "Running"). */
export const JOB_PHASE_LABEL: Record<string, string> = {
  poll: 'The service is working on it; Tagsmith checks back for the answer',
  download: 'Fetching the result',
  cancel: 'Asking the service to stop it',
};

export type BatchPhase = 'running' | 'queued' | 'held' | 'paused' | 'cancelled' | 'complete' | 'problems';

export function batchNumbers(b: BatchView) {
  const c = b.counts;
  const done = c.done ?? 0;
  const failed = c.failed ?? 0;
  const unknown = c.unknown ?? 0;
  const cancelled = c.cancelled ?? 0;
  const running = c.running ?? 0;
  const open = (c.queued ?? 0) + running + (c.paused ?? 0);
  return { done, failed, unknown, cancelled, running, open, finished: done + failed + unknown + cancelled };
}

export function batchPhase(b: BatchView, held: boolean): BatchPhase {
  const n = batchNumbers(b);
  if (n.open === 0) return b.cancelled ? 'cancelled' : n.failed + n.unknown > 0 ? 'problems' : 'complete';
  if (b.cancelled) return 'cancelled';
  if (b.paused) return 'paused';
  if (held && n.running === 0) return 'held';
  return n.running > 0 ? 'running' : 'queued';
}

export const BATCH_PHASE_LABEL: Record<BatchPhase, string> = {
  running: 'Running',
  queued: 'Waiting for its turn',
  held: 'Held',
  paused: 'Paused',
  cancelled: 'Cancelled',
  complete: 'Complete',
  problems: 'Finished with problems',
};
