import type { ReactNode, RefObject } from 'react';
import type { ScanProgress, SortKey } from '../../../../src-preload/contract';
import { TopBarSlot } from '../../ui/TopBarSlot';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { IconSearch, IconSort } from '../../ui/icons';

const SORTS: { key: SortKey; label: string }[] = [
  { key: 'takenAt', label: 'Capture date' },
  { key: 'name', label: 'File name' },
  { key: 'addedAt', label: 'Added' },
  { key: 'size', label: 'File size' },
  { key: 'quality', label: 'Stock quality' },
  { key: 'ugcQuality', label: 'UGC quality' },
  { key: 'colorMatch', label: 'Colour match' },
  { key: 'custom', label: 'Custom order' },
];

export function TopBar({ active, searchRef, text, onText, sort, order, onSort, onOrder, total, noun, progress, onCancelScan, customOrder, viewOptions, children }: {
  active: boolean;
  searchRef: RefObject<HTMLInputElement | null>;
  text: string;
  onText(t: string): void;
  sort: SortKey;
  order: 'asc' | 'desc';
  onSort(s: SortKey): void;
  onOrder(o: 'asc' | 'desc'): void;
  total: number | null;
  noun: string;
  progress: ScanProgress[];
  onCancelScan(): void;
  /** A manual collection is shown: its own order ("Custom order") can be picked. */
  customOrder?: boolean;
  /** View options beside the sort (what the cells show below the thumbnail). */
  viewOptions?: ReactNode;
  /** More status at the right end (AI runs in progress). */
  children?: ReactNode;
}) {
  const scan = progress.reduce(
    (acc, p) => ({
      found: acc.found + p.found, done: acc.done + p.done, errors: acc.errors + p.errors, rate: acc.rate + p.filesPerSec,
      walking: acc.walking || p.phase === 'walking',
      // Every file is in the grid; the full thumbnails are still being made.
      thumbs: acc.thumbs && p.phase === 'thumbnails' && !!p.thumbnails,
      thumbsDone: acc.thumbsDone + (p.thumbnails?.done ?? 0), thumbsTotal: acc.thumbsTotal + (p.thumbnails?.total ?? 0),
    }),
    { found: 0, done: 0, errors: 0, rate: 0, walking: false, thumbs: progress.length > 0, thumbsDone: 0, thumbsTotal: 0 },
  );
  return (
    <TopBarSlot active={active}>
      <div className="search">
        <IconSearch />
        <input
          ref={searchRef}
          type="search"
          value={text}
          placeholder="Search   Ctrl+F"
          title="Search names, keywords and captions (Ctrl+F)"
          spellCheck={false}
          data-testid="search"
          aria-label="Search"
          onChange={(e) => onText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              if (text) onText('');
              else e.currentTarget.blur();
            }
          }}
        />
      </div>
      <div className="sort">
        <label className="muted small" htmlFor="sort">Sort</label>
        <select id="sort" value={sort} onChange={(e) => onSort(e.target.value as SortKey)} data-testid="sort">
          {SORTS.filter((s) => s.key !== 'custom' || customOrder).map((s) => (
            <option key={s.key} value={s.key}>
              {s.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="icon-btn"
          data-testid="order"
          title={order === 'asc' ? 'Ascending — click for descending' : 'Descending — click for ascending'}
          aria-label={order === 'asc' ? 'Ascending' : 'Descending'}
          onClick={() => onOrder(order === 'asc' ? 'desc' : 'asc')}
        >
          <IconSort />
          <span className="small">{order === 'asc' ? 'Asc' : 'Desc'}</span>
        </button>
        {viewOptions}
      </div>
      <div className="result-count" data-testid="result-count" data-total={total ?? ''}>
        {total === null ? '' : `${formatCount(total)} ${total === 1 ? noun.replace(/s$/, '') : noun}`}
      </div>
      <div className="topbar-spacer" />
      {progress.length > 0 && (
        <div className="scan-progress" data-testid="scan-progress">
          <Spinner label="Scanning" />
          <span>
            {scan.walking ? `Finding files… ${formatCount(scan.found)}`
              : scan.thumbs ? `Thumbnails ${formatCount(scan.thumbsDone)} of ${formatCount(scan.thumbsTotal)}`
                : `Indexing ${formatCount(scan.done)} of ${formatCount(scan.found)}`}
            {scan.errors > 0 && <span className="warn-text"> · {formatCount(scan.errors)} problem{scan.errors > 1 ? 's' : ''}</span>}
            {scan.rate > 0 && !scan.thumbs && <span className="muted"> · {formatCount(Math.round(scan.rate))}/s</span>}
          </span>
          {scan.found > 0 && !scan.walking && (
            <span className="progress-bar">
              <span style={{ width: `${Math.min(100, scan.thumbs ? (scan.thumbsDone / Math.max(1, scan.thumbsTotal)) * 100 : (scan.done / scan.found) * 100)}%` }} />
            </span>
          )}
          <Button small onClick={onCancelScan} data-testid="cancel-scan">
            Cancel
          </Button>
        </div>
      )}
      {children}
    </TopBarSlot>
  );
}
