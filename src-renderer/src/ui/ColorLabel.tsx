import type { ColorLabel } from '../../../src-preload/contract';

export const COLOR_LABELS: readonly ColorLabel[] = ['red', 'yellow', 'green', 'blue', 'purple'];

/** Lightroom's keys: 6 red, 7 yellow, 8 green, 9 blue (purple has no key there either). */
export const LABEL_KEYS: Readonly<Record<string, ColorLabel>> = { '6': 'red', '7': 'yellow', '8': 'green', '9': 'blue' };

const NAME: Record<ColorLabel, string> = { red: 'Red', yellow: 'Yellow', green: 'Green', blue: 'Blue', purple: 'Purple' };
const KEY: Partial<Record<ColorLabel, string>> = { red: '6', yellow: '7', green: '8', blue: '9' };

export const labelName = (l: ColorLabel): string => NAME[l];

/** A small swatch for a labelled asset; nothing when it has no label. */
export function LabelDot({ label, testId }: { label: ColorLabel | null; testId?: string }) {
  if (!label) return null;
  return <span className={`label-dot label-${label}`} title={`${NAME[label]} label`} aria-label={`${NAME[label]} label`} data-testid={testId} data-label={label} />;
}

/**
 * Choose a colour label (Lightroom's Photo › Set Color Label): the five swatches and None.
 * Clicking the current label clears it, as pressing its key again does.
 */
export function LabelPicker({ value, onChange, testId }: { value: ColorLabel | null; onChange(label: ColorLabel | null): void; testId: string }) {
  return (
    <span className="label-picker" role="radiogroup" aria-label="Colour label" data-testid={testId} data-label={value ?? ''}>
      {COLOR_LABELS.map((l) => (
        <button
          key={l}
          type="button"
          role="radio"
          aria-checked={value === l}
          aria-label={`${NAME[l]} label`}
          title={`${NAME[l]}${KEY[l] ? ` (${KEY[l]})` : ''}`}
          className={`label-swatch label-${l}${value === l ? ' on' : ''}`}
          data-testid={`${testId}-${l}`}
          onClick={() => onChange(value === l ? null : l)}
        />
      ))}
      <button type="button" role="radio" aria-checked={value === null} className="label-none" title="No label" data-testid={`${testId}-none`} onClick={() => onChange(null)}>
        None
      </button>
    </span>
  );
}
