import type { Locator } from '@playwright/test';

// The contrast check of issue 35: every piece of text shown inside `root` against the
// background it is painted on (the nearest ancestor with an opaque background), by WCAG 2's
// formula. Body text needs 4.5:1, large text (24 px, or 18.7 px bold) 3:1. Text of disabled
// controls is exempt, as in WCAG. Placeholders count as text.

export interface LowContrast {
  text: string;
  ratio: number;
  need: number;
  color: string;
  background: string;
}

export async function lowContrast(root: Locator): Promise<LowContrast[]> {
  return root.evaluate((top) => {
    const parse = (c: string): [number, number, number, number] | null => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return null;
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const over = (fg: number[], bg: number[]) => fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const backgroundOf = (el: Element): number[] => {
      const layers: number[][] = [];
      for (let e: Element | null = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0) {
          layers.push(c);
          if (c[3] >= 1) break;
        }
      }
      let bg = [0, 0, 0];
      for (const l of layers.reverse()) bg = over(l, bg);
      return bg;
    };
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      for (let e: Element | null = el; e; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false;
      }
      return true;
    };
    const out: { text: string; ratio: number; need: number; color: string; background: string }[] = [];
    const check = (el: Element, text: string, color: string, s: CSSStyleDeclaration) => {
      const fg = parse(color);
      if (!fg || fg[3] === 0) return;
      const bg = backgroundOf(el);
      const shown = over(fg, bg);
      const a = lum(shown);
      const b = lum(bg);
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      if (ratio < need - 0.005) out.push({ text: text.slice(0, 60), ratio: Math.round(ratio * 100) / 100, need, color, background: `rgb(${bg.map(Math.round).join(', ')})` });
    };
    const all = [top, ...top.querySelectorAll('*')];
    for (const el of all) {
      if (!visible(el)) continue;
      if ((el as HTMLButtonElement).disabled || el.closest('[disabled], [aria-disabled="true"]')) continue;
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
        if (el.type === 'checkbox' || el.type === 'radio' || el.type === 'range' || el.type === 'color') continue;
        if (!el.value && el.placeholder) check(el, `placeholder "${el.placeholder}"`, getComputedStyle(el, '::placeholder').color, getComputedStyle(el));
        else if (el.value) check(el, el.value, getComputedStyle(el).color, getComputedStyle(el));
        continue;
      }
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? '').join('').trim();
      if (!own) continue;
      // Glyph-only marks (stars, a flag) are symbols, judged with the control they belong to.
      if (!/[A-Za-z0-9]/.test(own)) continue;
      const s = getComputedStyle(el);
      check(el, own, s.color, s);
    }
    return out;
  });
}
