import { useEffect, useRef, useState } from 'react';
import type { KeywordCount } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { keywordPath } from '../../ui/format';

/**
 * Keyword chips: × removes one, typing suggests library keywords (most used first), Enter
 * or a click adds, comma separates several, Backspace on an empty field removes the last.
 */
export function KeywordEditor({ keywords, onAdd, onRemove, placeholder = 'Add keyword' }: {
  keywords: string[];
  onAdd(words: string[]): Promise<boolean>;
  onRemove(word: string): Promise<boolean>;
  placeholder?: string;
}) {
  const { api } = useClient();
  const [text, setText] = useState('');
  const [suggestions, setSuggestions] = useState<KeywordCount[]>([]);
  const [highlight, setHighlight] = useState(-1);
  const inputRef = useRef<HTMLInputElement>(null);
  const prefix = text.trim();

  useEffect(() => {
    if (!prefix) return;
    let live = true;
    const t = setTimeout(() => {
      api.listKeywords({ prefix, limit: 8 }).then(
        (list) => live && setSuggestions(list.filter((k) => !keywords.some((x) => x.toLowerCase() === k.name.toLowerCase()))),
        () => live && setSuggestions([]),
      );
    }, 80);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, prefix, keywords]);

  const shown = prefix ? suggestions : [];

  const add = async (raw: string) => {
    const words = raw.split(',').map((w) => w.trim()).filter(Boolean);
    if (!words.length) return;
    setText('');
    setSuggestions([]);
    setHighlight(-1);
    await onAdd(words);
    inputRef.current?.focus();
  };

  return (
    <div className="keyword-editor" data-testid="keyword-editor">
      <div className="chips" onClick={() => inputRef.current?.focus()}>
        {keywords.map((k) => (
          <span key={k} className="chip" data-testid="keyword-chip" data-keyword={k}>
            {keywordPath(k)}
            <button type="button" aria-label={`Remove keyword ${keywordPath(k)}`} data-testid="keyword-remove" onClick={() => void onRemove(k)}>
              ×
            </button>
          </span>
        ))}
        <input
          ref={inputRef}
          type="text"
          value={text}
          placeholder={keywords.length ? '' : placeholder}
          spellCheck={false}
          data-testid="keyword-input"
          aria-label="Add keyword"
          aria-autocomplete="list"
          onChange={(e) => {
            setText(e.target.value);
            setHighlight(-1);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' && shown.length) {
              e.preventDefault();
              setHighlight((h) => (h + 1) % shown.length);
            } else if (e.key === 'ArrowUp' && shown.length) {
              e.preventDefault();
              setHighlight((h) => (h <= 0 ? shown.length - 1 : h - 1));
            } else if (e.key === 'Enter' || e.key === 'Tab') {
              const pick = highlight >= 0 ? shown[highlight]?.name : undefined;
              if (pick || text.trim()) {
                e.preventDefault();
                void add(pick ?? text);
              }
            } else if (e.key === ',') {
              e.preventDefault();
              void add(text);
            } else if (e.key === 'Backspace' && !text && keywords.length) {
              void onRemove(keywords[keywords.length - 1]);
            } else if (e.key === 'Escape') {
              if (text) {
                e.stopPropagation();
                setText('');
              }
            }
          }}
        />
      </div>
      {shown.length > 0 && (
        <ul className="suggestions" role="listbox" data-testid="keyword-suggestions">
          {shown.map((s, i) => (
            <li
              key={s.name}
              role="option"
              aria-selected={i === highlight}
              className={i === highlight ? 'on' : ''}
              data-testid="keyword-suggestion"
              onMouseDown={(e) => {
                e.preventDefault();
                void add(s.name);
              }}
            >
              <span>{keywordPath(s.name)}</span>
              <span className="muted small">{s.count}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
