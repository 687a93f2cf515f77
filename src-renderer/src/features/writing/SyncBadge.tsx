import type { SyncStateView } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { formatDateTime } from '../../ui/format';

const LABEL: Record<SyncStateView['status'], string> = {
  in_sync: 'In sync with the file',
  unsaved: 'Unsaved changes',
  written: 'Written to the file',
  failed: 'Writing failed',
  unknown: 'Not compared with the file yet',
};

const FIELD: Record<string, string> = { keywords: 'keywords', caption: 'caption', title: 'title', rating: 'rating', label: 'colour label' };

/** Whether the file carries what the library says (the inspector's answer to "did I save this?"). */
export function SyncBadge({ id }: { id: number }) {
  const s = useQuery<SyncStateView>(`sync:${id}`, ['assets', 'keywords'], (a) => a.syncState({ id }));
  const v = s.data?.assetId === id ? s.data : undefined;
  if (!v) return null;
  const detail =
    v.status === 'failed'
      ? v.error
      : v.status === 'unsaved' && v.unsavedFields.length
        ? `Not yet in the file: ${v.unsavedFields.map((f) => FIELD[f] ?? f).join(', ')}`
        : v.status === 'written' && v.writtenAt
          ? `Written ${formatDateTime(v.writtenAt)}`
          : null;
  return (
    <div className={`sync sync-${v.status}`} data-testid="sync-badge" data-status={v.status}>
      <span className="sync-dot" />
      <div className="sync-text">
        <span>{LABEL[v.status]}</span>
        {detail && <span className="muted small" data-testid="sync-detail">{detail}</span>}
        {v.conflicts.length > 0 && (
          <span className="warn-text small" data-testid="sync-conflicts">
            Changed in the file and here: {v.conflicts.map((c) => FIELD[c.field] ?? c.field).join(', ')} — resolve before writing.
          </span>
        )}
      </div>
    </div>
  );
}
