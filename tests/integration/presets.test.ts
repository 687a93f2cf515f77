import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';
import { readTags } from '../../src-main/metadata/file-writer';

// Stock and rights fields beside keywords, edited across a selection and through named
// presets applied in one undoable step, and written into the files as IPTC Core / XMP.

const root = mkdtempSync(join(tmpdir(), 'tagsmith-presets-'));
const photos = join(root, 'photos');
mkdirSync(photos);
const ctx = openLibrary(join(root, 'lib'));
const host = createApi(ctx, { watch: false });
const api = host.api;
afterAll(() => host.dispose());

describe('rights fields and metadata presets', () => {
  it('edits across a selection, applies a preset as one undoable step, and writes IPTC/XMP', async () => {
    const files = ['a.jpg', 'b.jpg', 'c.jpg'].map((n) => join(photos, n));
    for (const f of files) await sharp({ create: { width: 40, height: 30, channels: 3, background: '#556677' } }).jpeg().toFile(f);
    await api.addFolder({ path: photos });
    await host.scanner.waitForIdle();
    const ids = files.map((f) => findAssetByPath(ctx, f)!);

    await api.setRightsFields({ ids: [ids[0]], fields: { headline: 'Harbour at dusk' } });
    expect((await api.getAsset({ id: ids[0] })).rights).toMatchObject({ headline: 'Harbour at dusk', creator: null });

    const preset = await api.savePreset({ name: 'Lisbon shoot 2026', fields: { creator: 'Ana Silva', copyright: '© 2026 Ana Silva', city: 'Lisboa', country: 'Portugal', credit: '' } });
    expect(preset.fields).toEqual({ creator: 'Ana Silva', copyright: '© 2026 Ana Silva', city: 'Lisboa', country: 'Portugal' });
    // Saving under the same name (any case) replaces it, spelled as last saved.
    const again = await api.savePreset({ name: 'lisbon SHOOT 2026', fields: { creator: 'Ana Silva', copyright: '© 2026 Ana Silva', city: 'Lisboa', country: 'Portugal' } });
    expect(again.id).toBe(preset.id);
    expect(await api.listPresets()).toHaveLength(1);

    await api.applyPreset({ id: preset.id, ids });
    for (const id of ids) expect((await api.getAsset({ id })).rights).toMatchObject({ creator: 'Ana Silva', city: 'Lisboa', country: 'Portugal' });
    // The headline set by hand is not a preset field: it stays.
    expect((await api.getAsset({ id: ids[0] })).rights.headline).toBe('Harbour at dusk');

    expect(await api.undo()).toBe('Undo: apply the preset “lisbon SHOOT 2026” to 3 items');
    for (const id of ids) expect((await api.getAsset({ id })).rights.creator).toBeNull();
    expect((await api.getAsset({ id: ids[0] })).rights.headline).toBe('Harbour at dusk');

    await api.applyPreset({ id: preset.id, ids });
    const results = await api.writeMetadata({ ids });
    expect(results.map((r) => r.status)).toEqual(['written', 'written', 'written']);
    const tags = await readTags(files[0]);
    expect(tags['IPTC:By-line']).toBe('Ana Silva');
    expect(tags['XMP-dc:Creator']).toBe('Ana Silva');
    expect(tags['IPTC:City']).toBe('Lisboa');
    expect(tags['XMP-photoshop:Country']).toBe('Portugal');
    expect(tags['XMP-photoshop:Headline']).toBe('Harbour at dusk');
    expect(tags['XMP-dc:Rights']).toBe('© 2026 Ana Silva');

    await api.deletePreset({ id: preset.id });
    expect(await api.listPresets()).toEqual([]);
    expect(await host.invoke('savePreset', { name: ' ', fields: { city: 'x' } })).toMatchObject({ ok: false, error: { field: 'name' } });
    expect(await host.invoke('savePreset', { name: 'Empty', fields: {} })).toMatchObject({ ok: false, error: { field: 'fields' } });
  });
});
