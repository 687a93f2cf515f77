import { useEffect, useState } from 'react';
import type { SimilarResult } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { IconClose } from '../../ui/icons';
import { errorText } from '../../ui/Toasts';

/**
 * "Find similar" (issue 17), as Lightroom shows such results: a temporary view of the photos
 * nearest to one, nearest first, each with its distance. Escape or Back returns to the grid
 * as it was; a double-click shows that photo in the library.
 */
export function SimilarView({ assetId, active, onExit, onShow }: { assetId: number; active: boolean; onExit(): void; onShow(id: number): void }) {
  const { api, mediaUrl } = useClient();
  const [result, setResult] = useState<SimilarResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<number | null>(null);

  useEffect(() => {
    // A new photo mounts a new view (key), so there is nothing to reset here.
    let current = true;
    api.findSimilar({ assetId, limit: 200 }).then(
      (r) => current && setResult(r),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [api, assetId]);

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || document.querySelector('[role="dialog"]')) return;
      e.preventDefault();
      onExit();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, onExit]);

  return (
    <div className="similar-view" data-testid="similar-view">
      <div className="similar-head">
        <Button small onClick={onExit} data-testid="similar-back" title="Back to the library (Esc)">
          <IconClose /> Back
        </Button>
        <h2 data-testid="similar-title">{result ? `Similar to ${result.source.name}` : 'Finding similar photos…'}</h2>
        {result && (
          <span className="muted small" data-testid="similar-count">
            {result.items.length ? `${formatCount(result.items.length)} photo${result.items.length === 1 ? '' : 's'}, nearest first` : 'No similar photos in the library'}
          </span>
        )}
      </div>
      {error ? (
        <div className="empty-state" data-testid="similar-error">
          <h1>Cannot find similar photos</h1>
          <p>{error}</p>
        </div>
      ) : !result ? (
        <div className="empty-state">
          <Spinner label="Comparing" />
        </div>
      ) : (
        <div className="similar-list" role="list">
          {result.items.map((item) => (
            <div
              key={item.id}
              role="listitem"
              className={`similar-item${chosen === item.id ? ' is-selected' : ''}`}
              data-testid="similar-item"
              data-asset-id={item.id}
              data-name={item.name}
              data-distance={item.distance}
              title={`${item.name} — distance ${item.distance} (double-click to show it in the library)`}
              onClick={() => setChosen(item.id)}
              onDoubleClick={() => onShow(item.id)}
            >
              <div className="cell-thumb">{item.thumb ? <img src={mediaUrl(item.thumb)} alt={item.name} draggable={false} decoding="async" /> : <span className="cell-nothumb">{item.format.toUpperCase()}</span>}</div>
              <div className="cell-meta">
                <span className="cell-name">{item.name}</span>
                <span className="similar-distance">distance {item.distance}</span>
              </div>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
