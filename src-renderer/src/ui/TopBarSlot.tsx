import { createContext, useContext, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

// The shell's top bar has one area that belongs to the view on screen (the library's search
// and sort, Activity's totals). Views render into it from wherever their state lives.

export const TopBarSlotContext = createContext<HTMLElement | null>(null);

export function TopBarSlot({ active, children }: { active: boolean; children: ReactNode }) {
  const slot = useContext(TopBarSlotContext);
  if (!active || !slot) return null;
  return createPortal(children, slot);
}
