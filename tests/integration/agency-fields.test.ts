import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';

// Per-photo agency fields (issue 19): category per agency, editorial flag, release names —
// stored in the catalogue, set for a selection as one undoable edit, read by the check and
// written into the agency's CSV.

const root = mkdtempSync(join(tmpdir(), 'tagsmith-agency-fields-'));
const photos = join(root, 'photos');
mkdirSync(photos);
const ctx = openLibrary(join(root, 'lib'));
const host = createApi(ctx, { watch: false });
const api = host.api;
afterAll(() => host.dispose());

describe('agency fields', () => {
  it('sets categories, editorial and releases on a selection; the check and the CSV use them; undo puts them back', async () => {
    const files = ['a.jpg', 'b.jpg'].map((n) => join(photos, n));
    for (const f of files) await sharp({ create: { width: 2500, height: 1700, channels: 3, background: '#335577' } }).jpeg().toFile(f);
    await api.addFolder({ path: photos });
    await host.scanner.waitForIdle();
    const ids = files.map((f) => findAssetByPath(ctx, f)!);
    await api.editKeywords({ ids, add: ['boat', 'harbour', 'dawn', 'sea', 'water', 'calm', 'morning'] });
    await api.setCaption({ ids, caption: 'Fishing boats in a quiet harbour at dawn' });

    // Shutterstock needs a category: both fail until one is set.
    const before = await api.checkForAgency({ ids, agency: 'shutterstock' });
    expect(before.map((v) => v.ok)).toEqual([false, false]);
    expect(before[0].problems).toEqual([expect.stringMatching(/No category: Shutterstock needs 1 to 2\. Choose one here or in the inspector's Agencies section/)]);

    await api.setStockFields({ ids, categories: { agency: 'shutterstock', values: ['Nature', 'Transportation'] } });
    await api.setStockFields({ ids, categories: { agency: 'adobe', values: ['20'] } });
    await api.setStockFields({ ids: [ids[0]], editorial: true, releases: ['Harbour master', 'Boat owner'] });
    expect(await api.getStockFields({ id: ids[0] })).toEqual({
      editorial: true, releases: ['Harbour master', 'Boat owner'], categories: { adobe: ['20'], shutterstock: ['Nature', 'Transportation'] }, sent: [],
    });
    expect(await api.getStockFields({ id: ids[1] })).toEqual({ editorial: false, releases: [], categories: { adobe: ['20'], shutterstock: ['Nature', 'Transportation'] }, sent: [] });
    expect((await api.checkForAgency({ ids, agency: 'shutterstock' })).map((v) => v.ok)).toEqual([true, true]);

    const ss = await api.exportCsv({ ids, agency: 'shutterstock' });
    expect(ss.csv.split('\r\n').slice(0, 3)).toEqual([
      'Filename,Description,Keywords,Categories,Editorial,Mature content,illustration',
      'a.jpg,Fishing boats in a quiet harbour at dawn,"boat,harbour,dawn,sea,water,calm,morning","Nature,Transportation",Yes,No,No',
      'b.jpg,Fishing boats in a quiet harbour at dawn,"boat,harbour,dawn,sea,water,calm,morning","Nature,Transportation",No,No,No',
    ]);
    const adobe = await api.exportCsv({ ids: [ids[0]], agency: 'adobe' });
    expect(adobe.csv.split('\r\n')[1]).toBe('a.jpg,Fishing boats in a quiet harbour at dawn,"boat,harbour,dawn,sea,water,calm,morning",20,"Harbour master,Boat owner"');

    // A category outside the agency's list is refused with the reason; nothing changes.
    expect(await host.invoke('setStockFields', { ids, categories: { agency: 'shutterstock', values: ['Boats'] } }))
      .toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringMatching(/“Boats” is not one of Shutterstock's categories/) } });

    // Each set is one undoable edit.
    expect(await api.undo()).toMatch(/^Undo: mark as editorial, set releases “Harbour master”, “Boat owner” of 1 photo$/);
    expect(await api.getStockFields({ id: ids[0] })).toMatchObject({ editorial: false, releases: [] });
    await api.undo();
    expect((await api.getStockFields({ id: ids[0] })).categories).toEqual({ shutterstock: ['Nature', 'Transportation'] });
  });
});
