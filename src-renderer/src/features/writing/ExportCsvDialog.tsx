import { useEffect, useState } from 'react';
import type { AgencyId, AgencyIssue, AgencyProfileView, AgencyVerdict } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconCheck, IconWarn } from '../../ui/icons';
import { Modal } from '../../ui/Modal';
import { Button, formatCount } from '../../ui/primitives';
import { errorText, useToast } from '../../ui/Toasts';
import { usePersistentState } from '../../state/viewState';
import { useAssetDetail } from '../inspector/Inspector';
import { useEdits } from '../inspector/useEdits';
import './check.css';

/** Hand the CSV to the browser as a file download (no native save dialog here). */
function download(name: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const fileBase = (id: AgencyId): string => (id === 'adobe' ? 'adobe-stock' : id);
const baseName = (p: string): string => p.split(/[\\/]/).pop() ?? p;

/**
 * Check & export CSV…: the selection against a stock agency's published rules (a verdict per
 * photo, what to fix), then that agency's upload CSV. Failing photos are held back unless the
 * user ticks the override.
 */
export function ExportCsvDialog({ ids, onClose }: { ids: number[]; onClose(): void }) {
  const { api } = useClient();
  const toast = useToast();
  const [agencies, setAgencies] = useState<AgencyProfileView[] | null>(null);
  // The agency last checked for, also after a restart (most people send to one or two).
  const [agency, setAgency] = usePersistentState<AgencyId>('export.agency', 'adobe', (v): v is AgencyId => typeof v === 'string' && /^[a-z0-9-]+$/.test(v));
  // Verdicts are kept with the check they answer, so a stale answer never shows for another agency.
  const [round, setRound] = useState(0);
  const [checked, setChecked] = useState<{ key: string; list: AgencyVerdict[] } | null>(null);
  const key = `${agency}:${round}`;
  const verdicts = checked?.key === key ? checked.list : null;
  const setVerdicts = (list: AgencyVerdict[]) => setChecked({ key, list });
  const [override, setOverride] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [shown, setShown] = useState(PAGE);
  const edits = useEdits();

  useEffect(() => {
    api.listAgencies().then(setAgencies, (err: unknown) => setProblem(errorText(err)));
  }, [api]);

  useEffect(() => {
    const k = `${agency}:${round}`;
    api.checkForAgency({ ids, agency }).then((list) => setChecked({ key: k, list }), (err: unknown) => setProblem(errorText(err)));
  }, [api, ids, agency, round]);
  const check = () => setRound((n) => n + 1);

  const profile = agencies?.find((a) => a.id === agency);
  // An agency remembered from an older version that is no longer offered: back to the first.
  useEffect(() => {
    if (agencies?.length && !agencies.some((a) => a.id === agency)) setAgency(agencies[0].id);
  }, [agencies, agency, setAgency]);
  const failing = verdicts?.filter((v) => !v.ok) ?? [];
  // The same one-click fix on many photos ("Remove commas" from 150 titles): offered once for all.
  const fixAll = oneClickGroups(failing);
  const applyAll = async (group: FixGroup) => {
    setBusy(true);
    // Photos whose fixed text is the same get it in one edit (one undo step for all of them).
    const byValue = new Map<string, number[]>();
    for (const f of group.fixes) byValue.set(f.value.trim(), [...(byValue.get(f.value.trim()) ?? []), f.id]);
    const ok = await edits.commit(async () => {
      for (const [value, ids] of byValue) await (group.field === 'title' ? api.setTitle({ ids, title: value || null }) : api.setCaption({ ids, caption: value || null }));
    });
    setBusy(false);
    if (ok) {
      toast.info(`${group.label}: ${formatCount(group.fixes.length)} ${group.field === 'title' ? 'titles' : 'captions'} fixed.`);
      check();
    }
  };
  // Problems many photos share that one edit fixes: a category to choose, keywords to add.
  const bulk = bulkGroups(failing);
  const setCategoryAll = async (value: string) => {
    const ids = bulk.category;
    setBusy(true);
    const ok = await edits.commit(() => api.setStockFields({ ids, categories: { agency, values: [value] } }));
    setBusy(false);
    if (ok) {
      toast.info(`Category “${profile?.categories.find((c) => c.value === value)?.label ?? value}” set on ${formatCount(ids.length)} photos.`);
      check();
    }
  };
  const addKeywordsAll = async (words: string[]) => {
    const ids = bulk.keywords;
    setBusy(true);
    const ok = await edits.addKeywords(ids, words);
    setBusy(false);
    if (ok) {
      toast.info(`Added ${words.length === 1 ? `“${words[0]}”` : `${formatCount(words.length)} keywords`} to ${formatCount(ids.length)} photos.`);
      check();
    }
  };
  // Too many keywords: each photo loses its own keywords past the agency's maximum, all in one edit.
  const trimAll = async () => {
    const removals = bulk.trim.map((t) => ({ id: t.id, remove: t.remove }));
    const count = removals.reduce((n, r) => n + r.remove.length, 0);
    setBusy(true);
    const ok = await edits.commit(() => api.removeKeywordsEach({ removals }));
    setBusy(false);
    if (ok) {
      toast.info(`Removed ${formatCount(count)} ${count === 1 ? 'keyword' : 'keywords'} from ${formatCount(removals.length)} ${removals.length === 1 ? 'photo' : 'photos'}.`);
      check();
    }
  };
  const sendable = verdicts ? (override ? verdicts.length : verdicts.length - failing.length) : 0;

  const run = async () => {
    if (!profile) return;
    setBusy(true);
    setProblem(null);
    const name = `${fileBase(agency)}-${new Date().toISOString().slice(0, 10)}.csv`;
    try {
      const path = await api.pickSavePath({ defaultName: name });
      const args = { ids, agency, force: override };
      const out = path ? await api.exportCsv({ ...args, path }) : await api.exportCsv(args);
      if (!path) download(name, out.csv);
      const held = out.verdicts.filter((v) => !v.included).length;
      const msg = `${formatCount(out.rows)} ${out.rows === 1 ? 'row' : 'rows'} exported for ${profile.name}${path ? ` to ${path}` : ''}${held ? `; ${formatCount(held)} held back` : ''}.`;
      toast.info(msg);
      setDone(msg);
      setVerdicts(out.verdicts);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  // Issue 19: the same selection to the agency's upload server, through the queue (Activity
  // shows the progress and can cancel); failing photos are held back unless overridden.
  const upload = async () => {
    if (!profile) return;
    setBusy(true);
    setProblem(null);
    try {
      const out = await api.uploadToAgency({ ids, agency, force: override });
      const parts = [`${formatCount(out.queued)} ${out.queued === 1 ? 'photo' : 'photos'} on the way to ${profile.name} (${out.url}): progress in Activity.`];
      if (out.alreadySent) parts.push(`${formatCount(out.alreadySent)} already sent unchanged.`);
      if (out.heldBack.length) parts.push(`${formatCount(out.heldBack.length)} held back by the check.`);
      setSent(parts.join(' '));
      toast.info(parts[0]);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const uploadButton = profile && profile.protocols.length > 0 && !sent && (
    <Button disabled={busy || !verdicts || sendable === 0} onClick={() => void upload()} data-testid="csv-upload" title="Send the files to the agency’s upload server (Settings › Agencies)">
      {verdicts ? `Upload ${formatCount(sendable)}…` : 'Upload…'}
    </Button>
  );

  return (
    <Modal
      title={`Check & export for ${formatCount(ids.length)} ${ids.length === 1 ? 'photo' : 'photos'}`}
      subtitle="Each photo against the agency’s published rules, then its upload CSV (UTF-8, keywords in your order)."
      onClose={onClose}
      testId="export-csv"
      wide
      footer={
        done || sent ? (
          <>
            {uploadButton}
            <Button variant="primary" onClick={onClose} data-testid="csv-done">Done</Button>
          </>
        ) : (
          <>
            <Button onClick={onClose} data-testid="csv-cancel">Cancel</Button>
            <Button onClick={check} data-testid="csv-recheck">Check again</Button>
            {uploadButton}
            <Button
              variant="primary"
              disabled={busy || !verdicts || !profile?.csv || sendable === 0}
              title={profile && !profile.csv ? `${profile.name} documents no metadata CSV` : undefined}
              onClick={() => void run()}
              data-testid="csv-confirm"
            >
              {verdicts ? `Export ${formatCount(sendable)}…` : 'Export…'}
            </Button>
          </>
        )
      }
    >
      <div className="check-picker">
        <label className="check-picker-label" htmlFor="csv-agency">Agency</label>
        <select
          id="csv-agency"
          className="select-sm"
          data-testid="csv-agency"
          value={agency}
          onChange={(e) => {
            setAgency(e.target.value as AgencyId);
            setOverride(false);
            setDone(null);
            setSent(null);
          }}
        >
          {(agencies ?? []).map((a) => (
            <option key={a.id} value={a.id}>{a.name}</option>
          ))}
        </select>
        {profile && <span className="muted small check-picker-csv">{profile.csvHeader ? `CSV: ${profile.csvHeader.join(', ')}` : 'No metadata CSV documented: check only'}</span>}
      </div>
      {verdicts ? (
        <div data-testid="csv-verdicts">
          <p className={`check-verdict${failing.length ? ' is-problem' : ' is-ok'}`} data-testid="csv-summary">
            {failing.length ? <IconWarn /> : <IconCheck />}
            <span>
              {formatCount(verdicts.length - failing.length)} of {formatCount(verdicts.length)} pass {profile?.name ?? ''}’s rules
              {failing.length ? `; ${formatCount(failing.length)} to fix.` : '.'}
            </span>
          </p>
          {(fixAll.length > 0 || bulk.category.length > 1 || bulk.keywords.length > 1 || bulk.trim.length > 1) && (
            <div className="check-fixall" data-testid="csv-fixall">
              {fixAll.map((g) => (
                <Button key={g.key} small disabled={busy} onClick={() => void applyAll(g)} data-testid="csv-fixall-button" data-field={g.field}>
                  {g.label} in {formatCount(g.fixes.length)} {g.field === 'title' ? 'titles' : 'captions'}
                </Button>
              ))}
              {bulk.category.length > 1 && profile && profile.categories.length > 0 && (
                <label className="check-bulk" data-testid="csv-fixall-category">
                  <span>Set category</span>
                  <select
                    className="select-sm"
                    aria-label={`${profile.name} category for ${formatCount(bulk.category.length)} photos`}
                    data-testid="csv-fixall-category-select"
                    value=""
                    disabled={busy}
                    onChange={(e) => e.target.value && void setCategoryAll(e.target.value)}
                  >
                    <option value="">Choose…</option>
                    {profile.categories.map((c) => (
                      <option key={c.value} value={c.value}>{c.label}</option>
                    ))}
                  </select>
                  <span>on {formatCount(bulk.category.length)} photos</span>
                </label>
              )}
              {bulk.trim.length > 1 && <TrimKeywordsAll trims={bulk.trim} agency={profile?.name ?? 'the agency'} busy={busy} onApply={() => void trimAll()} />}
              {bulk.keywords.length > 1 && <AddKeywordsAll count={bulk.keywords.length} busy={busy} onAdd={(words) => void addKeywordsAll(words)} />}
            </div>
          )}
          {failing.length > 0 && (
            <ul className="check-photos" data-testid="csv-warnings">
              {failing.slice(0, shown).map((v) => (
                <ProblemPhoto key={v.assetId} verdict={v} agency={agency} profile={profile} onFixed={check} />
              ))}
              {failing.length > shown && (
                <li className="check-more">
                  <span className="muted small">Showing {formatCount(shown)} of {formatCount(failing.length)} photos to fix.</span>
                  <Button small onClick={() => setShown((n) => n + PAGE)} data-testid="csv-show-more">
                    Show {formatCount(Math.min(PAGE, failing.length - shown))} more
                  </Button>
                </li>
              )}
            </ul>
          )}
          {failing.length > 0 && !done && !sent && (
            <label className="small" data-testid="csv-override">
              <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} /> Include the {formatCount(failing.length)} failing {failing.length === 1 ? 'photo' : 'photos'} anyway
            </label>
          )}
        </div>
      ) : (
        !problem && <p className="muted small">Checking…</p>
      )}
      {profile && (
        <details className="muted small" data-testid="csv-rules">
          <summary>{profile.name}’s rules ({profile.sources.map((x) => x.checked).sort().at(-1)})</summary>
          <ul>{profile.rules.map((r) => <li key={r}>{r}</li>)}</ul>
          <ul>{profile.sources.map((x) => <li key={x.url}>{x.what}: {x.url}</li>)}</ul>
        </details>
      )}
      {profile && profile.notFound.length > 0 && (
        <details className="muted small" data-testid="csv-not-found">
          <summary>Rules {profile.name}’s documentation did not give ({profile.notFound.length})</summary>
          <ul>{profile.notFound.map((n) => <li key={n}>{n}</li>)}</ul>
        </details>
      )}
      {done && <p className="small" data-testid="csv-result">{done}</p>}
      {sent && <p className="small" data-testid="csv-upload-result">{sent}</p>}
      {problem && <p className="error-text" data-testid="csv-error">{problem}</p>}
    </Modal>
  );
}

/** Photos with problems listed at a time; "Show more" adds as many again. */
const PAGE = 100;

interface FixGroup {
  key: string;
  label: string;
  field: 'title' | 'caption';
  fixes: { id: number; field: 'title' | 'caption'; value: string }[];
}

/** One-click fixes of the same kind (same field, same label) that apply to two or more photos. */
function oneClickGroups(failing: AgencyVerdict[]): FixGroup[] {
  const groups = new Map<string, FixGroup>();
  for (const v of failing) {
    for (const issue of v.issues ?? []) {
      if ((issue.field !== 'title' && issue.field !== 'caption') || issue.fixed === undefined) continue;
      const label = issue.fixLabel ?? 'Fix';
      const key = `${issue.field}:${label}`;
      const g = groups.get(key) ?? { key, label, field: issue.field, fixes: [] };
      if (!g.fixes.some((f) => f.id === v.assetId)) g.fixes.push({ id: v.assetId, field: issue.field, value: issue.fixed });
      groups.set(key, g);
    }
  }
  return [...groups.values()].filter((g) => g.fixes.length > 1);
}

/** A keyword problem the user fixes by adding keywords ("…: add 2 more."). */
const needsKeywords = (issue: AgencyIssue): boolean => issue.field === 'keywords' && /add \d+ more/.test(issue.text);
/** A category problem fixed by choosing one: none chosen, or one the agency does not list (not "only the first N are sent"). */
const needsCategory = (issue: AgencyIssue): boolean => issue.field === 'category' && !/takes at most/.test(issue.text);

/** A photo with more keywords than the agency takes, and the keywords the fix takes off it. */
interface Trim {
  id: number;
  name: string;
  remove: string[];
}

/** The photos that need a category, those that need more keywords, and those with too many: each fixed for all of them in one edit. */
function bulkGroups(failing: AgencyVerdict[]): { category: number[]; keywords: number[]; trim: Trim[] } {
  const has = (pred: (i: AgencyIssue) => boolean) => failing.filter((v) => (v.issues ?? []).some(pred)).map((v) => v.assetId);
  const trim: Trim[] = [];
  for (const v of failing) {
    const remove = (v.issues ?? []).find((i) => i.field === 'keywords' && i.remove?.length)?.remove;
    if (remove) trim.push({ id: v.assetId, name: baseName(v.path), remove });
  }
  return { category: has(needsCategory), keywords: has(needsKeywords), trim };
}

/**
 * "Remove N keywords from M photos": every photo over the agency's maximum keeps its first
 * keywords (the order the user ranked them in) and loses the rest, which are listed before
 * anything changes. One edit: one Undo puts them all back.
 */
function TrimKeywordsAll({ trims, agency, busy, onApply }: { trims: Trim[]; agency: string; busy: boolean; onApply(): void }) {
  const count = trims.reduce((n, t) => n + t.remove.length, 0);
  return (
    <div className="check-trim" data-testid="csv-fixall-trim">
      <div className="check-bulk">
        <span>Too many keywords on {formatCount(trims.length)} photos: each keeps its first keywords, in its own order, up to {agency}’s maximum.</span>
        <Button small disabled={busy} onClick={onApply} data-testid="csv-fixall-trim-apply">
          Remove {formatCount(count)} {count === 1 ? 'keyword' : 'keywords'} from {formatCount(trims.length)} photos
        </Button>
      </div>
      <details className="check-trim-list">
        <summary>Keywords that will be removed</summary>
        <ul>
          {trims.map((t) => (
            <li key={t.id} data-testid="csv-fixall-trim-photo" data-asset-id={t.id}>
              <strong>{t.name}</strong>: {t.remove.join(', ')}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

/** "Add keywords [ … ] to N photos": the same words on every photo that has too few, as one edit. */
function AddKeywordsAll({ count, busy, onAdd }: { count: number; busy: boolean; onAdd(words: string[]): void }) {
  const [text, setText] = useState('');
  const words = text.split(',').map((w) => w.trim()).filter(Boolean);
  const add = () => {
    if (!words.length) return;
    onAdd(words);
    setText('');
  };
  return (
    <div className="check-bulk" data-testid="csv-fixall-keywords">
      <span>Add keywords</span>
      <input
        type="text"
        className="check-fix-input"
        aria-label={`Keywords to add to ${formatCount(count)} photos`}
        placeholder="comma-separated"
        data-testid="csv-fixall-keywords-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && add()}
      />
      <Button small disabled={busy || !words.length} onClick={add} data-testid="csv-fixall-keywords-add">
        Add to {formatCount(count)} photos
      </Button>
    </div>
  );
}

/**
 * One photo that fails the check: its thumbnail and name, then each problem with its fix right
 * there — the title or caption in an input (and a one-click fix where one edit does it), keywords
 * to add, the agency's category. A fix is an ordinary edit (undoable), then the check runs again.
 */
function ProblemPhoto({ verdict, agency, profile, onFixed }: { verdict: AgencyVerdict; agency: AgencyId; profile: AgencyProfileView | undefined; onFixed(): void }) {
  const { mediaUrl } = useClient();
  const detail = useAssetDetail(verdict.assetId);
  const a = detail.data?.id === verdict.assetId ? detail.data : undefined;
  const issues: AgencyIssue[] = verdict.issues ?? verdict.problems.map((text) => ({ text, field: 'file' as const }));
  return (
    <li className="check-photo" data-testid="csv-verdict" data-path={verdict.path} data-asset-id={verdict.assetId}>
      <div className="check-photo-thumb">{a?.thumb && <img src={mediaUrl(a.thumb)} alt="" draggable={false} />}</div>
      <div className="check-photo-body">
        <strong className="check-photo-name">{baseName(verdict.path)}</strong>
        <ul className="check-issues">
          {issues.map((issue, n) => (
            <li key={`${verdict.assetId}:${n}`} data-testid="csv-issue" data-field={issue.field}>
              <span className="check-issue-text"><IconWarn />{issue.text}</span>
              <IssueFix issue={issue} id={verdict.assetId} agency={agency} profile={profile} title={a?.title ?? ''} caption={a?.caption ?? ''} onFixed={onFixed} />
            </li>
          ))}
        </ul>
      </div>
    </li>
  );
}

function IssueFix({ issue, id, agency, profile, title, caption, onFixed }: { issue: AgencyIssue; id: number; agency: AgencyId; profile: AgencyProfileView | undefined; title: string; caption: string; onFixed(): void }) {
  const { api } = useClient();
  const edits = useEdits();
  const done = (ok: boolean) => ok && onFixed();
  if (issue.field === 'title' || issue.field === 'caption') {
    const field = issue.field;
    const save = (v: string) => void (field === 'title' ? edits.setTitle([id], v.trim() || null) : edits.setCaption([id], v.trim() || null)).then(done);
    return (
      <div className="check-fix">
        <TextFix key={`${id}:${field}:${field === 'title' ? title : caption}`} label={field === 'title' ? 'Title' : 'Caption'} value={field === 'title' ? title : caption} onSave={save} />
        {issue.fixed !== undefined && (
          <Button small onClick={() => save(issue.fixed!)} data-testid="csv-fix-oneclick" title={`Set the ${field} to “${issue.fixed}”`}>
            {issue.fixLabel ?? 'Fix'}
          </Button>
        )}
      </div>
    );
  }
  if (issue.field === 'keywords' && issue.remove?.length) {
    const remove = issue.remove;
    return (
      <div className="check-fix check-fix-trim">
        <span className="muted">Removes the last ones: {remove.join(', ')}</span>
        <Button small onClick={() => void edits.removeKeywords([id], remove).then(done)} data-testid="csv-fix-trim" title="Keeps the first keywords in this photo’s order">
          Remove {remove.length === 1 ? 'it' : `these ${remove.length}`}
        </Button>
      </div>
    );
  }
  if (needsKeywords(issue)) {
    return (
      <div className="check-fix">
        <TextFix label="Add keywords" value="" placeholder="Keywords to add, comma-separated" onSave={(v) => {
          const words = v.split(',').map((w) => w.trim()).filter(Boolean);
          if (words.length) void edits.addKeywords([id], words).then(done);
        }} />
      </div>
    );
  }
  if (issue.field === 'category' && profile && profile.categories.length > 0) {
    return (
      <div className="check-fix">
        <select
          className="select-sm"
          aria-label={`${profile.name} category`}
          data-testid="csv-fix-category"
          defaultValue=""
          onChange={(e) => e.target.value && void edits.commit(() => api.setStockFields({ ids: [id], categories: { agency, values: [e.target.value] } })).then(done)}
        >
          <option value="">Choose a category…</option>
          {profile.categories.map((c) => (
            <option key={c.value} value={c.value}>{c.label}</option>
          ))}
        </select>
      </div>
    );
  }
  return null;
}

/** An input with its Save: Enter or the button saves, Escape puts the value back. */
function TextFix({ label, value, placeholder, onSave }: { label: string; value: string; placeholder?: string; onSave(v: string): void }) {
  const [text, setText] = useState(value);
  const changed = text !== value;
  return (
    <>
      <input
        type="text"
        className="check-fix-input"
        aria-label={label}
        data-testid="csv-fix-input"
        value={text}
        placeholder={placeholder ?? label}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && changed) onSave(text);
          if (e.key === 'Escape' && changed) {
            e.stopPropagation();
            setText(value);
          }
        }}
      />
      <Button small disabled={!changed} onClick={() => onSave(text)} data-testid="csv-fix-save">
        Save
      </Button>
    </>
  );
}
