import { mkdirSync, mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { findAssetByPath, getAssetDetail } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { editKeywords, setCaption, setTitle } from '../../src-main/library/edits';
import { addFolder } from '../../src-main/library/folders';
import { closeMetadataReader } from '../../src-main/metadata/reader';
import { scanFolder } from '../../src-main/library/scan';
import { writeFileMetadata } from '../../src-main/metadata/file-writer';
import { getSyncState } from '../../src-main/metadata/file-state';

// Another program edits a file the library knows: the rescan merges field by field against
// what the file held when Tagsmith last read it. Nothing is silently dropped.

const root = mkdtempSync(join(tmpdir(), 'tagsmith-external-'));
const photos = join(root, 'photos');
const ctx = openLibrary(join(root, 'lib'));
afterAll(async () => {
  await closeMetadataReader();
  ctx.db.close();
});

/** Stand-in for Lightroom or digiKam editing the file, then the clock moving on. */
async function otherProgramWrites(file: string, fields: Parameters<typeof writeFileMetadata>[1], tick: number) {
  await writeFileMetadata(file, fields);
  const t = new Date(Date.now() + tick * 1000);
  utimesSync(file, t, t);
}

describe('external changes picked up by the rescan', () => {
  it('takes fields changed only in the file, keeps fields changed only in the library, and flags both-sided changes', async () => {
    mkdirSync(photos, { recursive: true });
    const file = join(photos, 'harbour.jpg');
    await sharp({ create: { width: 80, height: 60, channels: 3, background: '#2060a0' } }).jpeg().toFile(file);
    await writeFileMetadata(file, { keywords: ['harbour', 'boats'], caption: 'Boats in the harbour', title: null, rating: 2, creator: 'Ana Silva', copyright: '© 2026 Ana Silva' });

    const folder = addFolder(ctx, photos);
    await scanFolder(ctx, folder.id);
    const id = findAssetByPath(ctx, file)!;
    expect(getAssetDetail(ctx, id)).toMatchObject({
      keywords: ['harbour', 'boats'], caption: 'Boats in the harbour', rating: 2,
      rights: { creator: 'Ana Silva', copyright: '© 2026 Ana Silva', city: null },
    });
    expect(getSyncState(ctx, id).status).toBe('in_sync');

    // The user edits in Tagsmith: a keyword and a title.
    await editKeywords(ctx, [id], ['evening'], []);
    await setTitle(ctx, [id], 'Harbour at dusk');
    // Meanwhile another program removes "boats", adds "sea", rewrites the caption and rates 4.
    await otherProgramWrites(file, { keywords: ['harbour', 'sea'], caption: 'Fishing boats at rest', title: null, rating: 4, creator: 'Ana Silva', copyright: '© 2026 Ana Silva', city: 'Lisboa' }, 5);

    const summary = await scanFolder(ctx, folder.id);
    expect(summary.updated).toBe(1);
    const after = getAssetDetail(ctx, id);
    expect(after.keywords).toEqual(['harbour', 'evening', 'sea']);
    expect(after.caption).toBe('Fishing boats at rest');
    expect(after.title).toBe('Harbour at dusk');
    expect(after.rating).toBe(4);
    expect(after.rights).toMatchObject({ creator: 'Ana Silva', city: 'Lisboa' });
    expect(getSyncState(ctx, id).conflicts).toEqual([]);

    // Both sides change the caption differently: the library keeps its value and the user is told.
    await setCaption(ctx, [id], 'Caption written in Tagsmith');
    await otherProgramWrites(file, { keywords: ['harbour', 'sea'], caption: 'Caption from the other program', title: null, rating: 4 }, 10);
    await scanFolder(ctx, folder.id);
    expect(getAssetDetail(ctx, id).caption).toBe('Caption written in Tagsmith');
    const state = getSyncState(ctx, id);
    expect(state.conflicts).toEqual([
      expect.objectContaining({ field: 'caption', file: 'Caption from the other program', library: 'Caption written in Tagsmith' }),
    ]);
  });
});
