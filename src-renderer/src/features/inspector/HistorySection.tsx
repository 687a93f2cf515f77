import type { AssetHistoryLine } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { formatDateTime } from '../../ui/format';
import { Section } from '../../ui/primitives';
import './history.css';

// The inspector's History (issue 34): who changed what of the photo in view, and when, newest
// first; this computer's changes read "You", a studio member's carry their user name. Folded
// away until opened (kept open or closed across photos and restarts, like Lightroom's panels);
// the history is read only while it is open.

export function HistorySection({ id }: { id: number }) {
  return (
    <Section title="History" testId="history-section" collapseKey="inspector.history" defaultOpen={false}>
      <HistoryList id={id} />
    </Section>
  );
}

function who(l: AssetHistoryLine): string {
  if (l.by === 'you') return 'You';
  return l.user ?? 'Another computer of the studio';
}

function HistoryList({ id }: { id: number }) {
  const q = useQuery<AssetHistoryLine[]>(`history:${id}`, ['assets', 'keywords'], (a) => a.assetHistory({ id }));
  if (q.error) return <p className="small error-text">{q.error.message}</p>;
  if (!q.data) return <p className="small muted">Loading…</p>;
  if (!q.data.length) return <p className="small muted" data-testid="history-empty">No changes to this photo yet.</p>;
  return (
    <ol className="history-list" data-testid="history-list" data-asset-id={id}>
      {q.data.map((l, i) => (
        <li key={i} className="history-line" data-testid="history-line">
          <div className="history-what">{l.what}</div>
          <div className="history-when">
            {who(l)} · {l.at === null ? 'when joining the studio' : formatDateTime(l.at)}
          </div>
        </li>
      ))}
    </ol>
  );
}
