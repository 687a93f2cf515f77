import { describe, expect, it } from 'vitest';
import type { EditRequest, GenerateRequest, ImageJobPreview } from '../../src-preload/contract';
import { checkMediaType } from '../../src-main/creative/media';
import { previewImageJob } from '../../src-main/creative/requests';
import { checkReferenceRoles } from '../../src-main/creative/rules';

// Issue 35, "one vocabulary": what the main side composes for the Create panels (the rule
// check's notes, cost lines and errors) is written for a photographer: no request parameter
// names, no endpoint paths or talk of "the interface", no doubled words, prices with their
// currency.

const ENGINEERING = [
  /\b[a-z]+_[a-z_]+\b/, // snake_case parameter names: lora_url, image_url
  /\b[a-z]+[A-Z][A-Za-z]*\b/, // camelCase names: sourceRoles, imageEdit
  /\/v\d\//, // endpoint paths
  /\binterface\b/i,
  /\bOpenAPI\b/i,
  /not (documented|stated)/i,
  /\b(\w+) \1\b/i, // doubled words: "Waiting waiting"
];

function plain(text: string): void {
  for (const re of ENGINEERING) expect(text, `${re} in “${text}”`).not.toMatch(re);
  // A price names its currency: a bare "$" reads as any dollar.
  expect(text.replace(/US\$/g, ''), `price without currency in “${text}”`).not.toContain('$');
}

function texts(p: ImageJobPreview): string[] {
  return [...p.notes, ...p.costNotes, ...(p.error ? [p.error.message] : [])];
}

const src = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `/photos/source-${i}.jpg` }));
const edit = (r: Partial<EditRequest>) => previewImageJob({ kind: 'edit', request: { prompt: 'make it dusk', sources: src(2), ...r } as EditRequest });
const generate = (r: Partial<GenerateRequest>) => previewImageJob({ kind: 'generate', request: { prompt: 'a harbour at dawn', ...r } as GenerateRequest });

describe('texts the Create panels show from the main side', () => {
  it('notes and cost lines of a valid request are in plain words, prices in US$', () => {
    const all = [
      ...texts(generate({})),
      ...texts(generate({ model: 'zimage', style: 'transparent' })),
      ...texts(edit({ model: 'gpt-image-2' })),
      ...texts(edit({ model: 'gemini-3-pro', sources: src(3), sourceRoles: ['style', 'character', 'object'] })),
    ];
    expect(all.length).toBeGreaterThan(5);
    for (const t of all) plain(t);
    expect(all.join(' ')).toMatch(/US\$0\.02 per source image/);
  });

  it('a broken reference-role rule is explained without the parameter name', () => {
    const broken = [
      edit({ model: 'gemini-3.1-flash', sources: src(5), sourceRoles: Array(5).fill('character') }),
      edit({ model: 'gemini-3.1-flash', sourceRoles: ['style', 'object'] }),
      edit({ model: 'flux2', sourceRoles: ['object', 'object'] }),
    ];
    for (const p of broken) {
      expect(p.ok).toBe(false);
      for (const t of texts(p)) plain(t);
    }
    expect(() => checkReferenceRoles('gemini-3-pro', 3, ['object'])).toThrow(/give each source picture one role: 3 pictures, 1 role marked/);
  });

  it('a file of the wrong type is named by its kind, not a document section', () => {
    for (const rule of ['audio', 'video', 'image'] as const) {
      let message = '';
      try {
        checkMediaType('/photos/notes.txt', rule, 'clip');
      } catch (e) {
        message = (e as Error).message.replace(/^clip: /, '');
      }
      expect(message).toContain('“notes.txt” is not');
      plain(message);
    }
  });
});
