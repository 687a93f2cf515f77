import { useEffect, useRef, useState } from 'react';
import type { KeywordCheck, KeywordCount } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { PRESET_NAME } from './provenance';

/** "23 / 49 — Adobe Stock", amber near or under the limit's bounds, red past them. */
export function KeywordCounter({ check }: { check: KeywordCheck }) {
  const over = check.count > check.max;
  const under = check.min > 0 && check.count < check.min;
  const near = !over && check.count >= Math.floor(check.max * 0.9);
  const tone = over ? 'bad' : under || near || !check.ok ? 'warn' : 'ok';
  return (
    <div className="kw-counter-wrap">
      <span className={`kw-counter kw-counter-${tone}`} data-testid="keyword-counter" data-count={check.count} data-max={check.max} data-tone={tone}>
        <strong>{check.count}</strong> / {check.max}
        {check.min > 0 ? <span className="muted"> (min {check.min})</span> : null} — {PRESET_NAME[check.preset]}
      </span>
      {check.warnings.length > 0 && (
        <ul className="kw-warnings" data-testid="keyword-warnings">
          {check.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The photo's keywords in the order they will be written (the order stock agencies weigh):
 * drag to reorder, or focus one and press Alt+↑/↓; × or Delete removes; the field below adds
 * by hand with library autocomplete.
 */
export function KeywordOrder({ keywords, onMove, onRemove, onAdd }: {
  keywords: string[];
  onMove(from: number, to: number): Promise<unknown>;
  onRemove(word: string): Promise<unknown>;
  onAdd(word: string): Promise<unknown>;
}) {
  const [drag, setDrag] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const [focusWord, setFocusWord] = useState<string | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  // After a move the list re-renders from the Api's answer: keep focus on the moved word.
  useEffect(() => {
    if (!focusWord) return;
    const i = keywords.indexOf(focusWord);
    const el = listRef.current?.querySelectorAll<HTMLElement>('li')[i];
    if (el && document.activeElement !== el) el.focus();
  }, [keywords, focusWord]);

  return (
    <div className="kw-order">
      {keywords.length === 0 ? (
        <p className="muted small kw-empty">No keywords yet. Accept suggestions below or type one.</p>
      ) : (
        <ol className="kw-list" ref={listRef} data-testid="accepted-keywords">
          {keywords.map((k, i) => (
            <li
              key={k}
              tabIndex={0}
              draggable
              className={`${drag === i ? 'is-dragging' : ''}${over === i && drag !== null && drag !== i ? (drag < i ? ' drop-after' : ' drop-before') : ''}`}
              data-testid="accepted-keyword"
              data-keyword={k}
              onFocus={() => setFocusWord(k)}
              onDragStart={(e) => {
                setDrag(i);
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/plain', k);
              }}
              onDragOver={(e) => {
                if (drag === null) return;
                e.preventDefault();
                setOver(i);
              }}
              onDragEnd={() => {
                setDrag(null);
                setOver(null);
              }}
              onDrop={(e) => {
                e.preventDefault();
                if (drag !== null && drag !== i) {
                  setFocusWord(keywords[drag]);
                  void onMove(drag, i);
                }
                setDrag(null);
                setOver(null);
              }}
              onKeyDown={(e) => {
                if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
                  e.preventDefault();
                  e.stopPropagation();
                  const to = e.key === 'ArrowUp' ? i - 1 : i + 1;
                  if (to >= 0 && to < keywords.length) {
                    setFocusWord(k);
                    void onMove(i, to);
                  }
                } else if (e.key === 'Delete' || e.key === 'Backspace') {
                  e.preventDefault();
                  e.stopPropagation();
                  setFocusWord(keywords[i + 1] ?? keywords[i - 1] ?? null);
                  void onRemove(k);
                } else if (!e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
                  e.preventDefault();
                  e.stopPropagation();
                  const el = listRef.current?.querySelectorAll<HTMLElement>('li')[e.key === 'ArrowUp' ? i - 1 : i + 1];
                  el?.focus();
                } else if (e.key === 'Escape') {
                  e.currentTarget.blur();
                  setFocusWord(null);
                }
              }}
            >
              <span className="kw-grip" aria-hidden="true">⋮⋮</span>
              <span className="kw-pos">{i + 1}</span>
              <span className="kw-word">{k}</span>
              <span className="kw-actions">
                <button type="button" tabIndex={-1} aria-label={`Move ${k} up`} title="Move up (Alt+↑)" disabled={i === 0} data-testid="keyword-up" onClick={() => { setFocusWord(k); void onMove(i, i - 1); }}>
                  ↑
                </button>
                <button type="button" tabIndex={-1} aria-label={`Move ${k} down`} title="Move down (Alt+↓)" disabled={i === keywords.length - 1} data-testid="keyword-down" onClick={() => { setFocusWord(k); void onMove(i, i + 1); }}>
                  ↓
                </button>
                <button type="button" tabIndex={-1} aria-label={`Remove ${k}`} title="Remove (Delete)" data-testid="keyword-remove" onClick={() => void onRemove(k)}>
                  ×
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      <AddKeyword keywords={keywords} onAdd={onAdd} />
    </div>
  );
}

function AddKeyword({ keywords, onAdd }: { keywords: string[]; onAdd(word: string): Promise<unknown> }) {
  const { api } = useClient();
  const [text, setText] = useState('');
  const [list, setList] = useState<KeywordCount[]>([]);
  const [hi, setHi] = useState(-1);
  const prefix = text.trim();
  useEffect(() => {
    if (!prefix) return;
    let live = true;
    const t = setTimeout(() => {
      api.listKeywords({ prefix, limit: 8 }).then(
        (l) => live && setList(l.filter((k) => !keywords.some((x) => x.toLowerCase() === k.name.toLowerCase()))),
        () => live && setList([]),
      );
    }, 80);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, prefix, keywords]);
  const shown = prefix ? list : [];
  const add = async (w: string) => {
    const word = w.trim();
    if (!word) return;
    setText('');
    setList([]);
    setHi(-1);
    await onAdd(word);
  };
  return (
    <div className="keyword-editor kw-add">
      <input
        type="text"
        value={text}
        placeholder="Add a keyword by hand…"
        spellCheck={false}
        data-testid="review-keyword-input"
        aria-label="Add a keyword"
        onChange={(e) => {
          setText(e.target.value);
          setHi(-1);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && shown.length) {
            e.preventDefault();
            setHi((h) => (h + 1) % shown.length);
          } else if (e.key === 'ArrowUp' && shown.length) {
            e.preventDefault();
            setHi((h) => (h <= 0 ? shown.length - 1 : h - 1));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            void add(hi >= 0 ? shown[hi].name : text);
          } else if (e.key === 'Escape') {
            e.stopPropagation();
            if (text) setText('');
            else e.currentTarget.blur();
          }
        }}
      />
      {shown.length > 0 && (
        <ul className="suggestions" role="listbox" data-testid="review-keyword-suggestions">
          {shown.map((s, i) => (
            <li key={s.name} role="option" aria-selected={i === hi} className={i === hi ? 'on' : ''} onMouseDown={(e) => { e.preventDefault(); void add(s.name); }}>
              <span>{s.name}</span>
              <span className="muted small">{s.count}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
