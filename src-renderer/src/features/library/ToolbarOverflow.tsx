import { useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { useDismiss } from '../../state/useDismiss';

/**
 * The grid toolbar keeps every control whole: when its controls no longer fit (a 1280 px
 * window with both side panels open), the view options fold into a "More" menu at the toolbar's
 * end, as Lightroom's toolbar puts what does not fit behind its chevron. Returns whether they are
 * folded. The need is measured from the controls' own widths (the selection count's full text
 * included), so the options come back as soon as there is room again.
 */
export function useToolbarOverflow(bar: RefObject<HTMLElement | null>, options: RefObject<HTMLElement | null>, more: RefObject<HTMLElement | null>, content: unknown): boolean {
  const [folded, setFolded] = useState(false);
  const optionsWidth = useRef(0);
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return;
    const measure = () => {
      if (!folded && options.current) optionsWidth.current = options.current.offsetWidth;
      const style = getComputedStyle(el);
      const kids = [...el.children] as HTMLElement[];
      let need = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + (parseFloat(style.columnGap) || 0) * Math.max(0, kids.length - 1);
      for (const k of kids) if (!k.classList.contains('topbar-spacer')) need += Math.max(k.scrollWidth, k.offsetWidth);
      // What the row would need with the options in it (when folded, in place of the More button).
      const inline = folded ? need - (more.current?.offsetWidth ?? 0) + optionsWidth.current : need;
      setFolded(inline > el.clientWidth + 0.5);
    };
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    return () => watch.disconnect();
  }, [bar, options, more, folded, content]);
  return folded;
}

/** The toolbar's "More" button (»), opening upwards over the grid with what did not fit. */
export function ToolbarMore({ buttonRef, children }: { buttonRef: RefObject<HTMLButtonElement | null>; children: ReactNode }) {
  const [at, setAt] = useState<{ right: number; bottom: number } | null>(null);
  useDismiss(at !== null, () => setAt(null));
  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="icon-btn toolbar-more"
        aria-haspopup="menu"
        aria-expanded={at !== null}
        aria-label="More view options"
        title="More view options"
        data-testid="toolbar-more"
        onMouseDown={(e) => e.stopPropagation()}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          setAt(at ? null : { right: window.innerWidth - r.right, bottom: window.innerHeight - r.top + 4 });
        }}
      >
        »
      </button>
      {at &&
        createPortal(
          <div className="context-menu toolbar-more-menu" role="menu" aria-label="View options" style={{ right: at.right, bottom: at.bottom }} data-testid="toolbar-more-menu" onMouseDown={(e) => e.stopPropagation()}>
            {children}
          </div>,
          // Outside the toolbar: its layout containment would hold a fixed menu inside it.
          document.body,
        )}
    </>
  );
}
