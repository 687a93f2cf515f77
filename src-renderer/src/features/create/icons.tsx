// Icons of the Create view (same stroke style as ui/icons.tsx).

export function IconSpark() {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M8 1.5l1.6 4.9 4.9 1.6-4.9 1.6L8 14.5l-1.6-4.9L1.5 8l4.9-1.6z" />
    </svg>
  );
}
export function IconFace() {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M8 14a6 6 0 1 0 0-12 6 6 0 0 0 0 12zM6 6.5v.01M10 6.5v.01M5.5 10a3 3 0 0 0 5 0" />
    </svg>
  );
}

/** The view switcher's icon for Create. */
export const IconCreate = IconSpark;
