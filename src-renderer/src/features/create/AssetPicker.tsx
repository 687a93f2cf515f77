import { useState } from 'react';
import type { AssetKind, AssetSummary, SearchResult } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';
import { useDebounced } from '../../state/useDebounced';
import { IconAudio, IconPlay } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, Spinner, formatDuration } from '../../ui/primitives';
import { splitName } from '../grid/cellState';

const SHOWN = 120;

/**
 * Pick sources from the library: assets of the given kinds, newest first (so the speech
 * made a minute ago is at the top), searchable by name, keywords and caption.
 */
export function AssetPicker({ title, kinds, max = 1, onPick, onClose, testId = 'asset-picker' }: {
  title: string;
  kinds: AssetKind[];
  max?: number;
  onPick(assets: AssetSummary[]): void;
  onClose(): void;
  testId?: string;
}) {
  const { mediaUrl } = useClient();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 150);
  const [picked, setPicked] = useState<AssetSummary[]>([]);
  const res = useQuery<SearchResult>(`picker:${kinds.join(',')}:${q}`, ['assets'], (a) =>
    a.search({ query: { kinds, ...(q ? { text: q } : {}), sort: 'addedAt', order: 'desc' }, page: { offset: 0, limit: SHOWN } }),
  );
  const toggle = (a: AssetSummary) => {
    if (max === 1) {
      onPick([a]);
      return;
    }
    setPicked((p) => (p.some((x) => x.id === a.id) ? p.filter((x) => x.id !== a.id) : p.length >= max ? p : [...p, a]));
  };
  const items = res.data?.items ?? [];
  return (
    <Modal
      wide
      title={title}
      subtitle={max > 1 ? `Choose up to ${max}. Newest first.` : 'Newest first. Click one to use it.'}
      onClose={onClose}
      testId={testId}
      footer={
        <>
          <span className="muted small modal-hint">{res.data ? `${res.data.total.toLocaleString()} in the library` : ''}</span>
          <Button onClick={onClose}>Cancel</Button>
          {max > 1 && (
            <Button variant="primary" disabled={!picked.length} onClick={() => onPick(picked)} data-testid="picker-use">
              Use {picked.length || ''} selected
            </Button>
          )}
        </>
      }
    >
      <input type="search" className="picker-search" placeholder="Search names, keywords, captions" value={text} onChange={(e) => setText(e.target.value)} data-testid="picker-search" />
      {res.loading && !res.data ? (
        <div className="picker-empty"><Spinner /></div>
      ) : items.length === 0 ? (
        <p className="picker-empty muted">Nothing of this kind in the library{q ? ' matches the search' : ' yet'}.</p>
      ) : (
        <ul className="picker-grid" role="listbox" aria-multiselectable={max > 1}>
          {items.map((a) => {
            const on = picked.some((x) => x.id === a.id);
            return (
              <li key={a.id}>
                <button type="button" className={`picker-cell${on ? ' on' : ''}`} role="option" aria-selected={on} onClick={() => toggle(a)} data-testid="picker-item" data-asset-id={a.id} data-name={a.name} title={a.name}>
                  <span className="picker-thumb">
                    {a.thumb ? <img src={mediaUrl(a.thumb)} alt="" loading="lazy" /> : a.kind === 'audio' ? <IconAudio /> : <IconPlay />}
                    {a.durationS !== null && <span className="badge badge-duration">{formatDuration(a.durationS)}</span>}
                  </span>
                  <span className="picker-name">{a.name}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </Modal>
  );
}

/** A chosen source shown as a small tile with its name, or an empty slot that opens the picker. */
export function SourceSlot({ label, asset, onChoose, onClear, error, testId, hint }: {
  label: string;
  asset: AssetSummary | null;
  onChoose(): void;
  onClear(): void;
  error?: string | null;
  testId: string;
  hint?: string;
}) {
  const { mediaUrl } = useClient();
  return (
    <div className={`slot${error ? ' slot-bad' : ''}`} data-testid={testId} data-asset-id={asset?.id ?? ''}>
      <div className="slot-label">{label}</div>
      {asset ? (
        <div className="slot-filled">
          <span className="slot-thumb">{asset.thumb ? <img src={mediaUrl(asset.thumb)} alt="" /> : asset.kind === 'audio' ? <IconAudio /> : <IconPlay />}</span>
          <span className="slot-text">
            {/* Shortened in the middle like the grid's names: the extension stays. */}
            <span className="slot-name" title={asset.name} data-testid={`${testId}-name`}>
              <span className="slot-name-head">{splitName(asset.name)[0]}</span>
              {splitName(asset.name)[1] && <span className="slot-name-tail">{splitName(asset.name)[1]}</span>}
            </span>
            <span className="muted small">
              {asset.format.toUpperCase()}
              {asset.width && asset.height ? ` · ${asset.width}×${asset.height}` : ''}
              {asset.durationS !== null ? ` · ${formatDuration(asset.durationS)}` : ''}
            </span>
          </span>
          <span className="slot-actions">
            <Button small variant="ghost" onClick={onChoose} data-testid={`${testId}-change`}>Change</Button>
            <Button small variant="ghost" onClick={onClear} aria-label={`Remove ${label}`}>×</Button>
          </span>
        </div>
      ) : (
        <button type="button" className="slot-empty" onClick={onChoose} data-testid={`${testId}-choose`}>
          Choose from library…
          {hint && <span className="muted small">{hint}</span>}
        </button>
      )}
      {error && <div className="field-error" data-testid={`${testId}-error`}>{error}</div>}
    </div>
  );
}
