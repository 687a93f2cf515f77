import type { CreativeKind, CreativeStatus, CreativeTaskView } from '../../../../src-preload/contract';
import { formatDateTime } from '../../ui/format';

export const KIND_LABEL: Record<CreativeKind, string> = {
  speech: 'Speech',
  videoLipsync: 'Video lipsync',
  imageLipsync: 'Image lipsync',
  generate: 'Image generation',
  edit: 'Image edit',
  faceSwap: 'Face swap',
  vectorize: 'Vectorize',
};

export const STATUS_LABEL: Record<CreativeStatus, string> = {
  waiting: 'Waiting',
  pending: 'Queued at the service',
  started: 'Processing',
  downloading: 'Saving to library',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  unknown: 'Outcome unknown',
  download_failed: 'Download failed',
};

/** The state-dot class of the shared `.state` style (Activity uses the same colours). */
export function stateClass(s: CreativeStatus): string {
  switch (s) {
    case 'waiting':
    case 'pending':
      return 'state state-queued';
    case 'started':
    case 'downloading':
      return 'state state-running';
    case 'done':
      return 'state state-done';
    case 'failed':
      return 'state state-failed';
    case 'cancelled':
      return 'state state-cancelled';
    default:
      return 'state state-unknown';
  }
}

export const isActive = (t: CreativeTaskView): boolean => ['waiting', 'pending', 'started', 'downloading'].includes(t.status);

/** "waiting — 1 ahead of you" / "queued at the service — 3 ahead" / "being processed". */
export function queueText(t: CreativeTaskView): string | null {
  if (!isActive(t) || t.status === 'downloading') return null;
  if (t.queue === null) return null;
  // The status beside it already says Waiting or Processing: the queue adds only where in line.
  if (t.queue === 0) return t.status === 'waiting' ? 'next in line' : null;
  return `${t.queue} ahead of you`;
}

export function seconds(s: number): string {
  const r = Math.max(0, Math.round(s));
  if (r < 60) return `${r} s`;
  const m = Math.floor(r / 60);
  if (m < 60) return `${m} min ${String(r % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export function elapsedMs(t: CreativeTaskView, now: number): number | null {
  if (t.elapsedMs !== null && !isActive(t)) return t.elapsedMs;
  const from = t.startedAt ?? t.createdAt;
  return Math.max(0, now - from);
}

export function when(ms: number): string {
  return formatDateTime(ms);
}

/** One line that says what the task was asked to do. */
export function taskSummary(t: CreativeTaskView): string {
  const p = t.params;
  const s = (k: string): string | null => (typeof p[k] === 'string' && p[k] ? String(p[k]) : null);
  switch (t.kind) {
    case 'speech':
      return [s('voice'), s('title') ?? clip(s('text') ?? '', 60)].filter(Boolean).join(' · ');
    case 'generate':
    case 'edit':
      return [s('model'), clip(s('prompt') ?? '', 70)].filter(Boolean).join(' · ');
    case 'videoLipsync':
    case 'imageLipsync':
      return [s('resolution'), `${t.sourceAssetIds.length} source${t.sourceAssetIds.length === 1 ? '' : 's'}`].filter(Boolean).join(' · ');
    default:
      return `${t.sourceAssetIds.length} source${t.sourceAssetIds.length === 1 ? '' : 's'}`;
  }
}

export function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}
