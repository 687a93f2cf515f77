import { useState } from 'react';
import type { LaneView } from '../../../../src-preload/contract';
import { ConfirmDialog } from '../../ui/Dialog';
import { IconPause, IconPlay, IconStop } from '../../ui/icons';
import { IconButton, formatCount } from '../../ui/primitives';
import { LANE_STATE_LABEL, laneLabel } from './labels';
import { useQueueControl } from './useQueueControl';

const busy = (l: LaneView) => l.running > 0 || l.queued > 0 || l.paused || l.recentStarts > 0;

/** One row per rate lane: its limit, what it is doing now, and pause/resume/cancel. */
export function Lanes({ lanes }: { lanes: LaneView[] }) {
  const control = useQueueControl();
  const [showIdle, setShowIdle] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState<LaneView | null>(null);
  const active = lanes.filter(busy);
  const idle = lanes.filter((l) => !busy(l));
  const shown = showIdle ? [...active, ...idle] : active;
  return (
    <section className="card" data-testid="lanes">
      <header className="card-head">
        <h2>By kind of work</h2>
        <span className="muted small">Each kind of request is sent no faster than the service allows; text to speech, lipsync and face swap go one at a time.</span>
        <div className="card-actions">
          {idle.length > 0 && (
            <button type="button" className="link-btn" onClick={() => setShowIdle((v) => !v)} data-testid="lanes-toggle-idle">
              {showIdle ? 'Hide the kinds with nothing to do' : `Show ${idle.length} more with nothing to do`}
            </button>
          )}
        </div>
      </header>
      {shown.length === 0 ? (
        <p className="muted card-empty">Nothing is waiting to be sent.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Kind of work</th>
              <th className="num" title="Requests per second Tagsmith keeps to, a little under the service's limit so it never answers 'too many'">At most</th>
              <th className="num" title="Requests started in the last second">Sent now</th>
              <th className="num">Running</th>
              <th className="num">Queued</th>
              <th>State</th>
              <th className="actions" aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {shown.map((l) => (
              <tr key={l.name} data-testid="lane-row" data-lane={l.name} data-state={l.state} className={busy(l) ? '' : 'is-idle'}>
                <td>{laneLabel(l.name)}</td>
                <td className="num muted">{l.concurrency === 1 && l.ratePerSecond > 1 ? 'one at a time' : `${trimRate(l.ratePerSecond)}/s`}</td>
                <td className="num" data-testid="lane-rate">
                  <RateBar value={l.recentStarts} max={l.ratePerSecond} />
                  {formatCount(l.recentStarts)}/s
                </td>
                <td className="num">{formatCount(l.running)}</td>
                <td className="num">{formatCount(l.queued)}</td>
                <td>
                  <span className={`state state-${l.state}`}>{LANE_STATE_LABEL[l.state]}</span>
                </td>
                <td className="actions">
                  {l.paused ? (
                    <IconButton label={`Resume ${laneLabel(l.name)}`} onClick={() => void control('resume', { type: 'lane', name: l.name })} data-testid="lane-resume">
                      <IconPlay />
                    </IconButton>
                  ) : (
                    <IconButton label={`Pause ${laneLabel(l.name)}`} onClick={() => void control('pause', { type: 'lane', name: l.name })} data-testid="lane-pause">
                      <IconPause />
                    </IconButton>
                  )}
                  <IconButton label={`Cancel everything waiting in ${laneLabel(l.name)}`} disabled={l.queued + l.running === 0} onClick={() => setConfirmCancel(l)} data-testid="lane-cancel">
                    <IconStop />
                  </IconButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirmCancel && (
        <ConfirmDialog
          title={`Cancel ${laneLabel(confirmCancel.name)}?`}
          confirmLabel="Cancel jobs"
          danger
          testId="confirm-lane-cancel"
          onCancel={() => setConfirmCancel(null)}
          onConfirm={() => {
            const lane = confirmCancel.name;
            setConfirmCancel(null);
            void control('cancel', { type: 'lane', name: lane });
          }}
        >
          <p>
            The {formatCount(confirmCancel.queued + confirmCancel.running)} jobs of this kind waiting or running, in every batch, stop. Results already received are kept.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const trimRate = (r: number): string => (Number.isInteger(r) ? String(r) : r.toFixed(1));

function RateBar({ value, max }: { value: number; max: number }) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  return (
    <span className="rate-bar" aria-hidden="true">
      <span style={{ width: `${pct}%` }} />
    </span>
  );
}
