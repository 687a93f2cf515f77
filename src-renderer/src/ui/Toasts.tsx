import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

type Tone = 'info' | 'error';
interface Toast {
  id: number;
  tone: Tone;
  text: string;
  undo?: () => void;
}

export interface NoticeOptions {
  /** The change this notice reports can be undone: an Undo button runs this. */
  undo?: () => void;
}

interface ToastApi {
  info(text: string, opts?: NoticeOptions): void;
  error(err: unknown): void;
  /** Clear every notice (the view changed: they were about what was on screen). */
  clear(): void;
}

const Ctx = createContext<ToastApi | null>(null);

/** At most this many notices at once: a new one pushes the oldest out. */
export const MAX_NOTICES = 2;

/** The Api rejects with Errors whose message is written for people; show exactly that. */
export function errorText(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong. Try again.';
}

const IRREGULAR: Record<string, string> = { set: 'set', put: 'put', write: 'wrote', take: 'took', make: 'made', undo: 'undid', redo: 'redid' };
const VERBS = new Set([
  'add', 'remove', 'reject', 'pick', 'flag', 'unflag', 'rate', 'label', 'set', 'apply', 'rename', 'accept', 'move', 'merge', 'delete', 'import',
  'caption', 'title', 'keyword', 'replace', 'clear', 'revert', 'write', 'take', 'put', 'edit', 'change', 'restore', 'reorder', 'create', 'unlabel',
]);

/**
 * A change described as a command ("reject 4 photos scoring below 68%", the Api's undo
 * labels) as a record of what was done: "Rejected 4 photos scoring below 68%."
 */
export function pastTense(description: string): string {
  const t = description.trim().replace(/[.]+$/, '');
  const m = /^(\S+)(.*)$/.exec(t);
  if (!m) return t;
  const word = m[1].toLowerCase();
  let past = m[1];
  if (VERBS.has(word)) {
    past = IRREGULAR[word] ?? (word.endsWith('e') ? `${word}d` : /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ied` : `${word}ed`);
  }
  const s = `${past}${m[2]}`;
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/** The Api's answer to undo ("Undo: rate 2 photos 3 stars") as what happened. */
export function undoneText(what: string | null): string {
  if (!what) return 'Nothing to undo.';
  const rest = what.replace(/^undo:\s*/i, '');
  const done = pastTense(rest);
  return `Undone: ${done.charAt(0).toLowerCase()}${done.slice(1)}`;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (tone: Tone, text: string, undo?: () => void) => {
      const id = next.current++;
      setToasts((ts) => [...ts.filter((t) => t.text !== text).slice(-(MAX_NOTICES - 1)), { id, tone, text, undo }]);
      // An error, or a change that can be undone, stays long enough to be read and acted on.
      setTimeout(() => dismiss(id), tone === 'error' || undo ? 10000 : 5000);
    },
    [dismiss],
  );
  const clear = useCallback(() => setToasts((ts) => (ts.length ? [] : ts)), []);
  const api = useMemo<ToastApi>(() => ({ info: (t, o) => push('info', t, o?.undo), error: (e) => push('error', errorText(e)), clear }), [push, clear]);
  return (
    <Ctx.Provider value={api}>
      {children}
      {/* A status strip below the views: it takes its own room and covers nothing the user works on. */}
      <div className="toasts" aria-live="polite" data-testid="notices" data-count={toasts.length} hidden={!toasts.length}>
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.tone}`} data-testid={`toast-${t.tone}`} role={t.tone === 'error' ? 'alert' : 'status'}>
            <span className="toast-text">{t.text}</span>
            {t.undo && (
              <button
                type="button"
                className="btn btn-default btn-sm toast-undo"
                data-testid="toast-undo"
                onClick={() => {
                  dismiss(t.id);
                  t.undo?.();
                }}
              >
                Undo
              </button>
            )}
            <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(Ctx);
  if (!api) throw new Error('useToast() outside <ToastProvider>');
  return api;
}
