import { useEffect, useState } from 'react';
import type { QueueCaps, QueueHold, QueueStatus } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useNow } from '../../state/useNow';
import { IconOffline, IconPause, IconPlay, IconWarn } from '../../ui/icons';
import { Button, Spinner, formatCount } from '../../ui/primitives';
import { Batches } from './Batches';
import { HOLD_TITLE, modelLabel } from './labels';
import { Lanes } from './Lanes';
import { useQueue } from './queueStore';
import { useQueueControl } from './useQueueControl';

/** Everything the queue is doing: holds, billed usage, lanes and batches. Live from queue events. */
export function ActivityView({ active, onOpenSettings }: { active: boolean; onOpenSettings(): void }) {
  const { store, snap } = useQueue();
  const { api } = useClient();
  const [caps, setCaps] = useState<QueueCaps | undefined>();

  // Fresh numbers whenever the view is shown (events keep them live from then on), and a
  // once-a-second re-read of the rates while work runs. Caps may have changed in Settings.
  useEffect(() => {
    if (!active) return;
    void store.refresh();
    let live = true;
    api.getCaps().then((c) => live && setCaps(c), () => {});
    const stopPolling = store.poll();
    return () => {
      live = false;
      stopPolling();
    };
  }, [active, store, api]);

  const status = snap.status;
  if (!status) {
    return (
      <div className="page" data-testid="activity">
        <div className="empty-state">{snap.error ? <p className="error-text">{snap.error.message}</p> : <Spinner label="Loading" />}</div>
      </div>
    );
  }
  return (
    <div className="page" data-testid="activity">
      <div className="page-body">
        {status.hold && <HoldBanner hold={status.hold} onOpenSettings={onOpenSettings} />}
        <Usage status={status} caps={caps} />
        <Batches store={store} snap={snap} held={!!status.hold} />
        <Lanes lanes={status.lanes} />
      </div>
    </div>
  );
}

/** The top bar's part while Activity is shown: the totals and pause/resume for everything. */
export function ActivityTopBar() {
  const { snap } = useQueue();
  const control = useQueueControl();
  const s = snap.status;
  const running = s?.counts.running ?? 0;
  const queued = (s?.counts.queued ?? 0) + (s?.counts.paused ?? 0);
  const userPaused = s?.hold?.reason === 'user';
  return (
    <>
      <h1 className="view-title">Activity</h1>
      <span className="result-count" data-testid="activity-summary">
        {s ? `${formatCount(running)} running · ${formatCount(queued)} waiting` : ''}
      </span>
      <div className="topbar-spacer" />
      {userPaused ? (
        <Button small onClick={() => void control('resume', { type: 'all' })} data-testid="resume-all">
          <IconPlay /> Resume all
        </Button>
      ) : (
        <Button small onClick={() => void control('pause', { type: 'all' })} disabled={!s} data-testid="pause-all" title="Hold all work until you resume (kept across restarts)">
          <IconPause /> Pause all
        </Button>
      )}
    </>
  );
}

function HoldBanner({ hold, onOpenSettings }: { hold: QueueHold; onOpenSettings(): void }) {
  const control = useQueueControl();
  const now = useNow(1000, hold.reason === 'offline');
  const nextIn = hold.nextCheckAt ? Math.max(0, Math.ceil((hold.nextCheckAt - now) / 1000)) : null;
  return (
    <div className={`hold-banner hold-${hold.reason}`} role="alert" data-testid="hold-banner" data-reason={hold.reason}>
      <span className="hold-icon">{hold.reason === 'offline' ? <IconOffline /> : hold.reason === 'user' ? <IconPause /> : <IconWarn />}</span>
      <div className="hold-text">
        <strong data-testid="hold-title">{HOLD_TITLE[hold.reason]}</strong>
        <span data-testid="hold-message">{hold.message}</span>
      </div>
      <div className="hold-actions">
        {(hold.reason === 'quota' || hold.reason === 'user' || hold.reason === 'cap') && (
          <Button variant="primary" onClick={() => void control('resume', { type: 'all' })} data-testid="hold-resume">
            <IconPlay /> Resume
          </Button>
        )}
        {hold.reason === 'cap' && (
          <Button onClick={onOpenSettings} data-testid="hold-caps-link">
            Change caps…
          </Button>
        )}
        {hold.reason === 'credentials' && (
          <Button variant="primary" onClick={onOpenSettings} data-testid="hold-settings-link">
            Enter credentials…
          </Button>
        )}
        {hold.reason === 'offline' && (
          <span className="hold-retry" data-testid="hold-retrying">
            <Spinner label="Retrying" /> Retrying automatically{nextIn !== null && nextIn > 0 ? ` · next try in ${nextIn} s` : '…'}
          </span>
        )}
      </div>
    </div>
  );
}

function Usage({ status, caps }: { status: QueueStatus; caps: QueueCaps | undefined }) {
  const u = status.usage;
  const prices = caps?.pricePerCall ?? {};
  const models = [...new Set([...Object.keys(u.byModelMonth), ...Object.keys(u.byModelToday)])].sort(
    (a, b) => (u.byModelMonth[b] ?? 0) - (u.byModelMonth[a] ?? 0) || a.localeCompare(b),
  );
  const spend = (m: Record<string, number>): number | null => {
    const keys = Object.keys(m);
    if (!keys.length || !keys.every((k) => typeof prices[k] === 'number')) return null;
    return keys.reduce((a, k) => a + m[k] * prices[k], 0);
  };
  const spendToday = spend(u.byModelToday);
  const spendMonth = spend(u.byModelMonth);
  return (
    <section className="card" data-testid="usage">
      <header className="card-head">
        <h2>Billed calls</h2>
        <span className="muted small">Counted by Tagsmith as the service answers; cached results cost nothing.</span>
      </header>
      <div className="usage">
        <div className="stat">
          <span className="stat-label">Today</span>
          <span className="stat-value" data-testid="usage-today">{formatCount(u.today)}</span>
          <span className="stat-sub">
            {caps?.dailyCalls != null ? `of ${formatCount(caps.dailyCalls)} a day` : 'no daily cap'}
            {spendToday !== null && ` · ≈ ${formatMoney(spendToday)}`}
          </span>
          {caps?.dailyCalls != null && <Meter value={u.today} max={caps.dailyCalls} />}
        </div>
        <div className="stat">
          <span className="stat-label">This month</span>
          <span className="stat-value" data-testid="usage-month">{formatCount(u.thisMonth)}</span>
          <span className="stat-sub">
            {caps?.monthlyCalls != null ? `of ${formatCount(caps.monthlyCalls)} a month` : 'no monthly cap'}
            {spendMonth !== null && ` · ≈ ${formatMoney(spendMonth)}`}
          </span>
          {caps?.monthlyCalls != null && <Meter value={u.thisMonth} max={caps.monthlyCalls} />}
        </div>
        <div className="usage-models">
          {models.length === 0 ? (
            <p className="muted">No billed calls this month.</p>
          ) : (
            <table className="table table-compact" data-testid="usage-models">
              <thead>
                <tr>
                  <th>Model</th>
                  <th className="num">Today</th>
                  <th className="num">Month</th>
                </tr>
              </thead>
              <tbody>
                {models.map((m) => (
                  <tr key={m} data-testid="usage-model" data-model={m}>
                    <td>{modelLabel(m)}</td>
                    <td className="num">{formatCount(u.byModelToday[m] ?? 0)}</td>
                    <td className="num">{formatCount(u.byModelMonth[m] ?? 0)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </section>
  );
}

function Meter({ value, max }: { value: number; max: number }) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 100;
  return (
    <span className={`meter${pct >= 90 ? ' meter-high' : ''}`}>
      <span style={{ width: `${pct}%` }} />
    </span>
  );
}

const money = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2, minimumFractionDigits: 2 });
export const formatMoney = (n: number): string => money.format(n);
