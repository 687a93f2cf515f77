import { useEffect, useState, type FormEvent } from 'react';
import type { QueueCaps, StudioCapsView } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { Button, Spinner } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';
import { CURRENCY } from '../../ui/format';
import { BILLING_KEYS, modelLabel } from '../activity/labels';

// Usage caps the queue enforces by pausing before a billed call would cross them. The
// interface publishes no prices, so a price per call is whatever the user enters.

interface Draft {
  dailyCalls: string;
  monthlyCalls: string;
  dailySpend: string;
  monthlySpend: string;
  accountRatePerSecond: string;
  prices: Record<string, string>;
}

type Problems = Partial<Record<string, string>>;

const str = (n: number | null | undefined): string => (n == null ? '' : String(n));

function toDraft(c: QueueCaps): Draft {
  return {
    dailyCalls: str(c.dailyCalls),
    monthlyCalls: str(c.monthlyCalls),
    dailySpend: str(c.dailySpend),
    monthlySpend: str(c.monthlySpend),
    accountRatePerSecond: str(c.accountRatePerSecond),
    prices: Object.fromEntries(Object.entries(c.pricePerCall ?? {}).map(([k, v]) => [k, String(v)])),
  };
}

/** Empty means "no cap"; otherwise a number of 0 or more (whole for call counts). */
function parse(d: Draft): { caps: QueueCaps; problems: Problems } {
  const problems: Problems = {};
  const num = (field: string, raw: string, whole: boolean): number | null => {
    const t = raw.trim().replace(',', '.');
    if (!t) return null;
    const n = Number(t);
    if (!Number.isFinite(n) || n < 0) problems[field] = 'Enter a number of 0 or more, or leave it empty for no cap.';
    else if (whole && !Number.isInteger(n)) problems[field] = 'Enter a whole number of calls.';
    return n;
  };
  const caps: QueueCaps = {
    dailyCalls: num('dailyCalls', d.dailyCalls, true),
    monthlyCalls: num('monthlyCalls', d.monthlyCalls, true),
    dailySpend: num('dailySpend', d.dailySpend, false),
    monthlySpend: num('monthlySpend', d.monthlySpend, false),
    accountRatePerSecond: num('accountRatePerSecond', d.accountRatePerSecond, false),
    pricePerCall: {},
  };
  if (caps.accountRatePerSecond != null && !problems.accountRatePerSecond && (caps.accountRatePerSecond <= 0 || caps.accountRatePerSecond > 30)) {
    problems.accountRatePerSecond = 'More than 0 and at most 30 requests per second, or empty for off.';
  }
  for (const [key, raw] of Object.entries(d.prices)) {
    const t = raw.trim().replace(',', '.');
    if (!t) continue;
    const n = Number(t);
    if (!Number.isFinite(n) || n < 0) problems[`price.${key}`] = 'A price of 0 or more.';
    else caps.pricePerCall![key] = n;
  }
  if (caps.dailyCalls != null && caps.monthlyCalls != null && !problems.dailyCalls && !problems.monthlyCalls && caps.dailyCalls > caps.monthlyCalls) {
    problems.monthlyCalls = 'The monthly cap is below the daily cap; the monthly one would stop work first.';
  }
  const spendCap = caps.dailySpend != null || caps.monthlySpend != null;
  if (spendCap && Object.keys(caps.pricePerCall!).length === 0) {
    problems.prices = 'Spend caps need a price per call for the models you use.';
  }
  return { caps, problems };
}

export function CapsForm({ active }: { active: boolean }) {
  const { api } = useClient();
  const toast = useToast();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [problems, setProblems] = useState<Problems>({});
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [newKey, setNewKey] = useState('');
  // A studio replica whose admin set caps: those apply, shown here and not editable (the
  // draft keeps this machine's own, which apply again if the library leaves the studio).
  const [studio, setStudio] = useState<StudioCapsView | null>(null);
  const load = (c: QueueCaps) => {
    setDraft(toDraft(c));
    setStudio(c.studio ?? null);
  };

  useEffect(() => {
    if (!active) return;
    let live = true;
    api.getCaps().then(
      (c) => {
        if (live) load(c);
      },
      (err: unknown) => live && toast.error(err),
    );
    return () => {
      live = false;
    };
  }, [active, api, toast]);

  if (!draft) {
    return (
      <section className="card" data-testid="settings-caps">
        <Spinner label="Loading" />
      </section>
    );
  }

  const edit = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const { caps, problems: found } = parse(draft);
    setProblems(found);
    if (Object.keys(found).length) return;
    setSaving(true);
    try {
      load(await api.setCaps({ caps }));
      setSaved(true);
    } catch (err) {
      const field = (err as { field?: string }).field;
      setProblems({ [field?.startsWith('pricePerCall.') ? `price.${field.slice(13)}` : field ?? 'form']: errorText(err) });
    } finally {
      setSaving(false);
    }
  };

  const keys = [...BILLING_KEYS.map((b) => b.key), ...Object.keys(draft.prices).filter((k) => !BILLING_KEYS.some((b) => b.key === k))];
  const pricesSet = Object.values(draft.prices).filter((v) => v.trim()).length;
  const field = (name: 'dailyCalls' | 'monthlyCalls' | 'dailySpend' | 'monthlySpend' | 'accountRatePerSecond', label: string, unit: string, placeholder: string) => {
    const fromStudio = studio && name !== 'accountRatePerSecond';
    return (
      <label className="form-row">
        <span className="form-label">{label}</span>
        <span className="form-field">
          <span className="input-unit">
            <input
              type="text"
              inputMode="decimal"
              value={fromStudio ? str(studio[name]) : draft[name]}
              placeholder={placeholder}
              onChange={(e) => edit({ [name]: e.target.value })}
              readOnly={!!fromStudio}
              disabled={!!fromStudio}
              title={fromStudio ? `Set by studio “${studio.name}”’s admin for all its computers together` : undefined}
              aria-invalid={!!problems[name]}
              data-testid={`caps-${name}`}
            />
            <span className="muted small">{fromStudio ? `${unit}, whole studio` : unit}</span>
          </span>
          {problems[name] && (
            <span className="error-text small" data-testid={`caps-error-${name}`}>
              {problems[name]}
            </span>
          )}
        </span>
      </label>
    );
  };

  return (
    <section className="card" data-testid="settings-caps">
      <header className="card-head">
        <h2>Usage caps</h2>
        <span className="muted small">The queue pauses before a billed call would cross a cap and tells you; cached results never count.</span>
      </header>
      {studio && (
        <p className="muted small" data-testid="caps-studio-note">
          This library is part of studio “{studio.name}”: the studio’s caps on calls and spending apply, counted for all its computers together. They are set by the studio’s admin
          {studio.admin ? ' — you are one: change them with tagsmith studio caps (e.g. --daily-calls 500).' : ', who can change them.'} Your prices and speed limit below still apply on this computer.
        </p>
      )}
      <form className="form" onSubmit={(e) => void save(e)} noValidate>
        {field('dailyCalls', 'Calls per day', 'billed calls', 'no cap')}
        {field('monthlyCalls', 'Calls per month', 'billed calls', 'no cap')}
        {field('accountRatePerSecond', 'Speed limit', 'requests per second, all tasks together', 'off')}
        <p className="muted small" data-testid="caps-account-rate-note">
          Tagsmith already keeps each kind of task within the service’s speed limits. If the service turns requests away as too many (“busy”), set a limit for all of them together here, e.g. 25. Off by default.
        </p>
        <details className="prices" open={pricesSet > 0 || !!problems.prices || undefined}>
          <summary>
            Prices and spend caps <span className="muted small">(optional{pricesSet ? ` · ${pricesSet} price${pricesSet > 1 ? 's' : ''} set` : ''})</span>
          </summary>
          <p className="muted small prices-note">The service publishes no prices: enter what your plan charges per call, in {CURRENCY}, to see estimates and cap spending.</p>
          <div className="price-grid" data-testid="caps-prices">
            {keys.map((k) => (
              <label key={k} className="price-row">
                <span>{modelLabel(k)}</span>
                <span className="muted small price-currency">US$</span>
                <input
                  type="text"
                  inputMode="decimal"
                  value={draft.prices[k] ?? ''}
                  placeholder="—"
                  onChange={(e) => edit({ prices: { ...draft.prices, [k]: e.target.value } })}
                  aria-invalid={!!problems[`price.${k}`]}
                  title={problems[`price.${k}`] ?? `Price per ${modelLabel(k)} call, in ${CURRENCY}`}
                  data-testid={`caps-price-${k}`}
                />
              </label>
            ))}
            <span className="price-row price-add">
              <input type="text" value={newKey} placeholder="other model key, e.g. image_generate:flux" onChange={(e) => setNewKey(e.target.value)} spellCheck={false} data-testid="caps-new-key" />
              <Button
                small
                disabled={!newKey.trim() || keys.includes(newKey.trim())}
                onClick={() => {
                  edit({ prices: { ...draft.prices, [newKey.trim()]: '' } });
                  setNewKey('');
                }}
              >
                Add
              </Button>
            </span>
          </div>
          {Object.entries(problems)
            .filter(([k]) => k.startsWith('price'))
            .map(([k, m]) => (
              <p key={k} className="error-text small" data-testid="caps-error-price">
                {k.startsWith('price.') ? `${modelLabel(k.slice(6))}: ` : ''}
                {m}
              </p>
            ))}
          {field('dailySpend', 'Spend per day', 'US$, at your prices', 'no cap')}
          {field('monthlySpend', 'Spend per month', 'US$, at your prices', 'no cap')}
        </details>
        <div className="form-row">
          <span className="form-label" />
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={saving} data-testid="caps-save">
              Save caps
            </Button>
            {saved && (
              <span className="status-saved small" data-testid="caps-saved">
                Saved. The queue uses the new caps now.
              </span>
            )}
            {problems.form && (
              <span className="error-text" role="alert">
                {problems.form}
              </span>
            )}
          </div>
        </div>
      </form>
    </section>
  );
}
