import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCorpus } from '../fixtures/real-world';
import { expect, test } from './harness';

// A file whose IPTC and XMP blocks disagree (tests/fixtures/real-world.ts): the inspector
// shows the values the MWG rule took and says so; a file whose blocks agree says nothing.

test('the inspector says when a file’s IPTC and XMP disagreed and which block it shows', async ({ launchApp }) => {
  const corpus = mkdtempSync(join(tmpdir(), 'tagsmith-e2e-corpus-'));
  const root = join(corpus, 'picked');
  try {
    await buildCorpus(join(corpus, 'all'));
    mkdirSync(root);
    for (const name of ['disagree-digest-stale.jpg', 'iptc-utf8.jpg']) copyFileSync(join(corpus, 'all', name), join(root, name));

    const app = await launchApp();
    const { page, api } = app;
    await api.addFolder({ path: root });
    await expect(page.getByTestId('grid-cell')).toHaveCount(2);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);

    await page.locator('[data-testid="grid-cell"][data-name="disagree-digest-stale.jpg"]').click();
    const inspector = page.locator('[data-testid="inspector-single"]');
    await expect(inspector.getByTestId('inspector-name')).toHaveText('disagree-digest-stale.jpg');
    const note = inspector.getByTestId('inspector-block-disagreement');
    await expect(note).toHaveAttribute('data-took', 'iptc');
    await expect(note).toContainText('IPTC and XMP disagreed on keywords, caption, creator');
    await expect(note).toContainText('a program that ignores XMP changed the IPTC afterwards');
    await expect(inspector.getByTestId('caption')).toHaveValue('Von der Redaktion korrigiert');

    await page.locator('[data-testid="grid-cell"][data-name="iptc-utf8.jpg"]').click();
    await expect(inspector.getByTestId('inspector-name')).toHaveText('iptc-utf8.jpg');
    await expect(inspector.getByTestId('inspector-block-disagreement')).toHaveCount(0);
  } finally {
    rmSync(corpus, { recursive: true, force: true });
  }
});
