import { useRef, type ReactNode } from 'react';
import type { Flag } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useAssetDetail } from '../inspector/Inspector';
import { LabelDot } from '../../ui/ColorLabel';
import { Stars } from '../../ui/Stars';
import { Spinner } from '../../ui/primitives';
import { ZoomImage } from './ZoomImage';
import type { Zoom } from './zoom';

/**
 * One photo in compare or survey: the picture (fit or 100 %) and a strip with what the user
 * judges it by — its flag, stars and colour label. The active frame is outlined; judging keys
 * apply to it. Pressing anywhere on the frame makes it active; a click on the active picture
 * toggles 100 % (the first click on another only makes that one active).
 */
export function JudgeFrame({
  id,
  flag,
  active,
  zoom,
  onZoom,
  onActivate,
  onRate,
  testId,
  tag,
  children,
}: {
  id: number;
  flag: Flag | null;
  active: boolean;
  zoom: Zoom;
  onZoom(z: Zoom): void;
  onActivate(): void;
  onRate(stars: number): void;
  testId: string;
  /** A word over the picture (Lightroom's "Select" / "Candidate"). */
  tag?: ReactNode;
  /** Extra controls in the strip (survey's remove button). */
  children?: ReactNode;
}) {
  const { mediaUrl } = useClient();
  const detail = useAssetDetail(id);
  const a = detail.data && detail.data.id === id ? detail.data : undefined;
  // Whether this frame was already the active one when the press began.
  const pressedActive = useRef(active);
  return (
    <div
      className={`judge-frame${active ? ' is-active' : ''}${flag === 'reject' ? ' is-rejected' : ''}`}
      data-testid={testId}
      data-asset-id={id}
      data-active={active}
      data-flag={flag ?? 'none'}
      data-rating={a?.rating ?? ''}
      data-label={a?.label ?? ''}
      data-name={a?.name ?? ''}
      onPointerDownCapture={() => {
        pressedActive.current = active;
        onActivate();
      }}
    >
      <div className="judge-stage">
        {a ? (
          <ZoomImage id={id} fitSrc={a.preview || a.thumb ? mediaUrl((a.preview ?? a.thumb)!) : null} alt={a.name} zoom={zoom} onZoom={onZoom} testId={`${testId}-zoom`} clickToggles={() => pressedActive.current} />
        ) : detail.error ? (
          <p className="muted">{detail.error.message}</p>
        ) : (
          <Spinner label="Loading" />
        )}
        {tag && <span className="judge-tag">{tag}</span>}
        {flag && (
          <span className={`judge-flag judge-flag-${flag}`} data-testid={`${testId}-flag`}>
            {flag === 'pick' ? '⚑ Picked' : '✕ Rejected'}
          </span>
        )}
      </div>
      <div className="judge-strip">
        <span className={`judge-flag-icon${flag ? ` is-${flag}` : ''}`} aria-label={flag === 'pick' ? 'Picked' : flag === 'reject' ? 'Rejected' : 'Unflagged'}>
          {flag === 'reject' ? '✕' : '⚑'}
        </span>
        <span className="judge-name" title={a?.name}>
          {a?.name ?? ''}
        </span>
        <Stars value={a?.rating ?? 0} onChange={onRate} size="sm" testId={`${testId}-stars`} />
        <LabelDot label={a?.label ?? null} testId={`${testId}-label`} />
        {children}
      </div>
    </div>
  );
}
