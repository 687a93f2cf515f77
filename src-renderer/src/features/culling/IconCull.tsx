/** A flag over a frame: the culling view's button (same 16px line style as ui/icons). */
export function IconCull() {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
      <path d="M2.5 4.5h8v8h-8z" />
      <path d="M12.5 2.5v11M12.5 3h2.2l-.8 1.5.8 1.5h-2.2" />
    </svg>
  );
}
