import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import sharp from 'sharp';
import { CredentialStore } from '../../src-main/credentials';
import { startSimulator } from '../simulator/index';
import { expect, test, type AppHandle } from './harness';
import { shot, shotSizes } from './shots';

// Create, end to end: the built renderer driving the REAL Api (creative service, durable
// queue, downloads into the Creations library folder) against the service simulator with a
// fast task clock. Speech waits its turn visibly, becomes a library asset with provenance,
// is lipsynced onto a portrait picked from the library; an image is generated with a model
// whose rules narrow the form, then edited; every result is found in the library.

const CLIENT_ID = 'e2e-create';
const SECRET = `s3cret-${randomUUID()}`;

const PARAGRAPH =
  'Morning light falls across the harbour. The boats are still, the water is glass, and the first gulls call over the market. ' +
  'By noon the quay is loud with voices; by evening, only the tide is left.';


/** A portrait JPEG with a face-like shape (the simulator only checks the format). */
async function portrait(dir: string): Promise<string> {
  const path = join(dir, 'portrait-anna.jpg');
  const svg = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800"><rect width="600" height="800" fill="#3b4654"/>` +
      `<ellipse cx="300" cy="360" rx="150" ry="195" fill="#d9a888"/><ellipse cx="245" cy="330" rx="18" ry="11" fill="#3a2a22"/>` +
      `<ellipse cx="355" cy="330" rx="18" ry="11" fill="#3a2a22"/><path d="M250 450 Q300 485 350 450" stroke="#8a3c3c" stroke-width="10" fill="none"/>` +
      `<rect x="150" y="560" width="300" height="240" rx="90" fill="#2a2f38"/></svg>`,
  );
  await sharp(svg).jpeg({ quality: 88 }).toFile(path);
  return path;
}

const task = (page: Page, kind: string) => page.locator(`[data-testid="task-card"][data-kind="${kind}"]`);

/**
 * Open a task's result in the library and check its provenance. What the user waits on is the
 * inspector showing that very file (another asset with provenance may be on screen before it).
 */
async function showInLibrary(page: Page, card: Locator): Promise<Locator> {
  const open = card.getByTestId('task-open');
  const assetId = await open.getAttribute('data-asset-id');
  expect(assetId).toMatch(/^\d+$/);
  await open.click();
  await expect(page.locator('.app')).toHaveAttribute('data-view', 'library');
  const shown = page.locator(`[data-testid="inspector-single"][data-asset-id="${assetId}"]`);
  await expect(shown).toBeVisible();
  const prov = shown.getByTestId('provenance');
  await expect(prov).toBeVisible();
  await expect(prov.getByTestId('provenance-ai')).toHaveText('AI-generated');
  await prov.scrollIntoViewIfNeeded();
  return prov;
}

test('speak, lipsync onto a portrait, generate with narrowed model rules and edit — every result in the library with its provenance', async ({ launchApp }) => {
  const sim = await startSimulator({ port: 0, accounts: [{ clientId: CLIENT_ID, clientSecret: SECRET }], taskClock: { pendingMs: 700, startedMs: 900 } });
  let app: AppHandle | undefined;
  try {
    app = await launchApp({ api: { credentials: new CredentialStore({ env: {}, service: `tagsmith-e2e-${randomUUID()}` }) }, viewport: { width: 1440, height: 900 } });
    const { page, api } = app;
    await api.setServiceUrl({ baseUrl: sim.url });
    await api.setCredentials({ clientId: CLIENT_ID, clientSecret: SECRET });
    const photos = mkdtempSync(join(tmpdir(), 'tagsmith-create-'));
    await portrait(photos);
    await api.addFolder({ path: photos });
    await expect(page.getByTestId('grid-cell')).toHaveCount(1);

    // ---- Voices & speech ------------------------------------------------------------------
    await page.getByTestId('nav-create').click();
    const speech = page.getByTestId('panel-speech');
    await expect(speech).toBeVisible();
    await expect(speech.getByTestId('voice').first()).toBeVisible();
    const allVoices = await speech.getByTestId('voice').count();
    await speech.getByTestId('voice-lang').selectOption('eng');
    await speech.getByTestId('voice-gender').selectOption('female');
    await expect.poll(() => speech.getByTestId('voice').count()).toBeLessThan(allVoices);
    await speech.getByTestId('voice-search').fill('ser');
    await expect(speech.getByTestId('voice')).toHaveCount(1);
    await speech.locator('[data-testid="voice"][data-voice="Serena"]').click();
    await expect(speech.locator('[data-voice="Serena"]')).toHaveAttribute('aria-checked', 'true');
    await speech.getByTestId('speech-title').fill('Harbour voice-over');
    await speech.getByTestId('speech-text').fill(PARAGRAPH);
    await expect(speech.getByTestId('speech-preview')).toHaveAttribute('data-billed', '1');
    await speech.getByTestId('voices-refresh').click();
    await expect(speech.getByTestId('voices-refresh')).toBeEnabled();
    await shotSizes(page, 'create-speech-form');

    // Two requests: TTS runs one at a time per account, so the second visibly waits. The
    // simulator's clock stands still until the test has seen that, so the first task cannot
    // finish before the second is on screen, however slow the machine is.
    sim.clock.freeze();
    await speech.getByTestId('speak').click();
    await speech.getByTestId('speech-title').fill('Harbour voice-over (take 2)');
    await speech.getByTestId('speak').click();
    const cards = task(page, 'speech');
    await expect(cards).toHaveCount(2);
    const second = cards.nth(0);
    const first = cards.nth(1);
    await expect(second.getByTestId('task-queue')).toContainText('ahead of you');
    await expect(second.getByTestId('task-status')).toHaveAttribute('data-status', 'waiting');
    await expect(first.getByTestId('task-status')).toHaveAttribute('data-status', /pending|started|downloading/);
    await shot(page, 'create-speech-waiting');
    sim.clock.thaw();
    await expect(first.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await expect(first.getByTestId('task-audio')).toBeVisible();
    await expect(second.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await expect(first.getByTestId('task-elapsed')).not.toHaveText('');
    await shot(page, 'create-speech-done');

    // The audio is in the library, with what made it.
    let prov = await showInLibrary(page, first);
    await expect(page.getByTestId('inspector-name')).toHaveText(/\.(mp3|wav)$/i);
    await expect(prov.getByTestId('provenance-voice')).toHaveText('Serena');
    await expect(prov.getByTestId('provenance-text')).toContainText('Morning light falls across the harbour');
    await shot(page, 'create-speech-provenance', page.getByTestId('inspector'));

    // ---- Lipsync: the speech onto the portrait, both picked from the library ------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-lipsync').click();
    const lip = page.getByTestId('panel-lipsync');
    await expect(lip.getByTestId('lipsync-advice')).toContainText('mouth visible');
    await lip.getByTestId('lipsync-start').click();
    await expect(lip.getByTestId('lipsync-audio-error')).toHaveText('Choose the speech audio.');
    await expect(lip.getByTestId('lipsync-image-error')).toHaveText('Choose the portrait.');
    await lip.getByTestId('lipsync-audio-choose').click();
    const picker = page.getByTestId('asset-picker');
    await expect(picker.getByTestId('picker-item')).toHaveCount(2); // the two speech files, newest first
    await shot(page, 'create-picker-audio');
    await picker.getByTestId('picker-item').first().click();
    await lip.getByTestId('lipsync-image-choose').click();
    await picker.locator('[data-testid="picker-item"][data-name="portrait-anna.jpg"]').click();
    await lip.getByTestId('lipsync-resolution-720p').click();
    await expect(lip.getByTestId('lipsync-audio-error')).toHaveCount(0);
    await shotSizes(page, 'create-lipsync-form');
    await lip.getByTestId('lipsync-start').click();
    const lipCard = task(page, 'imageLipsync').first();
    await expect(lipCard.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await expect(lipCard.getByTestId('task-video')).toBeVisible();
    await shot(page, 'create-lipsync-done');
    prov = await showInLibrary(page, lipCard);
    await expect(page.getByTestId('inspector-name')).toHaveText(/\.mp4$/i);
    await expect(prov.getByTestId('provenance-source')).toHaveCount(2);
    await expect(prov.locator('[data-testid="provenance-source"]', { hasText: 'portrait-anna.jpg' })).toBeVisible();
    await expect(prov.getByTestId('provenance-resolution')).toHaveText('720p');
    await shot(page, 'create-lipsync-provenance', page.getByTestId('inspector'));

    // ---- Generate: a model whose rules narrow the form ---------------------------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-generate').click();
    const gen = page.getByTestId('panel-generate');
    await gen.getByTestId('gen-prompt').fill('A lighthouse on a basalt cliff at blue hour, long exposure, calm sea');
    await gen.getByTestId('gen-model').selectOption('gpt-image-2');
    await expect(gen.getByTestId('gen-quality')).toBeVisible();
    await gen.getByTestId('gen-size').selectOption('landscape_16_9');
    await expect(gen.getByTestId('gen-resolution-3k')).toBeDisabled();
    await gen.getByTestId('gen-size').selectOption('square');
    await expect(gen.getByTestId('gen-resolution-3k')).toBeEnabled();
    await gen.getByTestId('gen-resolution-3k').click();
    await gen.getByTestId('gen-quality-high').click();
    // The client's rule check names the field when a request breaks a rule.
    await gen.getByTestId('gen-lora').fill('not a url');
    await expect(gen.getByTestId('gen-rules')).toHaveAttribute('data-ok', 'false');
    await expect(gen.getByTestId('gen-rules-error')).toHaveAttribute('data-field', 'lora_url');
    // … in the words of the form: the field's label, once, and no parameter name.
    await expect(gen.getByTestId('gen-rules-error')).toContainText(/^LoRA weights URL: /);
    await expect(gen.getByTestId('gen-rules-error')).not.toContainText('lora_url');
    await expect(gen.getByTestId('gen-start')).toBeDisabled();
    await shot(page, 'create-generate-rule-error');
    await gen.getByTestId('gen-lora').fill('');
    // A Grok model: no quality at all, and no 3k.
    await gen.getByTestId('gen-model').selectOption('grok-imagine');
    await expect(gen.getByTestId('gen-quality')).toHaveCount(0);
    await expect(gen.getByTestId('gen-resolution-3k')).toHaveCount(0);
    // Flux's transfer style takes a picture: the panel says it leaves as a copy without metadata.
    await gen.getByTestId('gen-model').selectOption('flux');
    await expect(gen.getByTestId('gen-privacy')).toHaveCount(0);
    await gen.getByTestId('gen-style').selectOption('transfer');
    await expect(gen.getByTestId('gen-privacy')).toContainText('copy without metadata');
    await gen.getByTestId('gen-model').selectOption('gpt-image-2');
    await gen.getByTestId('gen-resolution-3k').click();
    await gen.getByTestId('gen-seed').fill('4242');
    await expect(gen.getByTestId('gen-rules')).toHaveAttribute('data-ok', 'true');
    await shotSizes(page, 'create-generate-form');
    await gen.getByTestId('gen-start').click();
    const genCard = task(page, 'generate').first();
    await expect(genCard.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    await expect(genCard.getByTestId('task-image')).toBeVisible();
    await shot(page, 'create-generate-done');
    prov = await showInLibrary(page, genCard);
    await expect(prov.getByTestId('provenance-model')).toHaveText('gpt-image-2');
    await expect(prov.getByTestId('provenance-seed')).toHaveText('4242');
    await expect(prov.getByTestId('provenance-prompt')).toContainText('lighthouse');
    const generatedName = (await page.getByTestId('inspector-name').textContent())!;
    await shot(page, 'create-generate-provenance', page.getByTestId('inspector'));

    // ---- Edit the result ---------------------------------------------------------------------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-edit').click();
    const edit = page.getByTestId('panel-edit');
    await edit.getByTestId('edit-model').selectOption('gpt-image-2');
    await edit.getByTestId('edit-add').click();
    const editPicker = page.getByTestId('edit-picker');
    await editPicker.locator(`[data-testid="picker-item"][data-name="${generatedName}"]`).click();
    await editPicker.getByTestId('picker-use').click();
    await expect(edit.getByTestId('edit-sources')).toHaveAttribute('data-count', '1');
    await expect(edit.getByTestId('edit-privacy')).toContainText('copies without metadata');
    await edit.getByTestId('edit-prompt').fill('Make it a stormy night with lightning over the sea');
    await expect(edit.getByTestId('edit-cost-note')).toContainText('$0.02 per source image');
    await expect(edit.getByTestId('edit-rules')).toHaveAttribute('data-ok', 'true');
    await edit.getByTestId('edit-seed').fill('7');
    await shotSizes(page, 'create-edit-form');
    await edit.getByTestId('edit-start').click();
    const editCard = task(page, 'edit').first();
    await expect(editCard.getByTestId('task-status')).toHaveAttribute('data-status', 'done');
    prov = await showInLibrary(page, editCard);
    await expect(prov.getByTestId('provenance-model')).toHaveText('gpt-image-2');
    await expect(prov.locator('[data-testid="provenance-source"]', { hasText: generatedName })).toBeVisible();
    await shot(page, 'create-edit-provenance', page.getByTestId('inspector'));
    // The source link jumps to the generated image.
    await prov.getByTestId('provenance-source').first().click();
    await expect(page.getByTestId('inspector-name')).toHaveText(generatedName);

    // ---- Face swap (what the service leaves unspecified is shown) and the tasks list ----------
    await page.getByTestId('nav-create').click();
    await page.getByTestId('create-nav-faceswap').click();
    // Said in the user's words: no endpoint paths, no vendor documents on the panel.
    await expect(page.getByTestId('swap-unspecified')).toContainText('documents face swap only in part');
    await expect(page.getByTestId('panel-faceswap')).not.toContainText(/\/v1\/|OpenAPI|vendor|endpoint/);
    await shotSizes(page, 'create-faceswap');
    await page.getByTestId('create-nav-tasks').click();
    const tasks = page.getByTestId('panel-tasks');
    await expect(tasks.getByTestId('retention-note')).toContainText('24 hours');
    await expect(tasks.getByTestId('task-row')).toHaveCount(5);
    await expect(tasks.locator('[data-testid="task-row"][data-status="done"]')).toHaveCount(5);
    await shotSizes(page, 'create-tasks');

    // All results are library assets: 2 audio, 1 video, 2 generated/edited images + the portrait.
    await expect.poll(async () => (await api.search({ query: { kinds: ['audio'] }, page: { offset: 0, limit: 10 } })).total).toBe(2);
    await expect.poll(async () => (await api.search({ query: { kinds: ['video'] }, page: { offset: 0, limit: 10 } })).total).toBe(1);
    await expect.poll(async () => (await api.search({ query: { kinds: ['image'] }, page: { offset: 0, limit: 10 } })).total).toBe(3);
  } finally {
    await app?.close();
    await sim.close();
  }
});
