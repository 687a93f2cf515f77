import { useState } from 'react';

/** A 0–5 star rating. Clicking the current rating clears it (Lightroom's convention). */
export function Stars({ value, onChange, size = 'md', testId }: { value: number | null; onChange?: (n: number) => void; size?: 'sm' | 'md'; testId?: string }) {
  const [hover, setHover] = useState<number | null>(null);
  const shown = hover ?? value ?? 0;
  if (!onChange) {
    if (!value) return null;
    return (
      <span className={`stars stars-${size}`} data-testid={testId} aria-label={`${value} stars`} data-rating={value}>
        {'★'.repeat(value)}
      </span>
    );
  }
  return (
    <span className={`stars stars-${size} stars-edit`} data-testid={testId} data-rating={value ?? ''} role="radiogroup" aria-label="Rating" onMouseLeave={() => setHover(null)}>
      {[1, 2, 3, 4, 5].map((n) => (
        <button
          key={n}
          type="button"
          role="radio"
          aria-checked={value === n}
          aria-label={`${n} star${n > 1 ? 's' : ''}`}
          data-testid={testId ? `${testId}-${n}` : undefined}
          className={n <= shown ? 'on' : ''}
          onMouseEnter={() => setHover(n)}
          onClick={() => onChange(value === n ? 0 : n)}
        >
          ★
        </button>
      ))}
    </span>
  );
}
