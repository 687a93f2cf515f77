import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api, SearchQuery } from '../../src-preload/contract';
import { createApi, type ApiHost } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { listVocabulary } from '../../src-main/library/keyword-list';

// Undo beyond a photo's fields, as a Lightroom user expects of the one Undo: creating,
// renaming, moving and deleting collections, and deleting a keyword together with its
// keyword-list entry and synonyms. A real scan of real files into a real SQLite catalogue,
// through the Api the app uses.

const picture = (file: string, background: string) => sharp({ create: { width: 48, height: 32, channels: 3, background } }).jpeg().toFile(file);

let dir: string;
let ctx: LibraryCtx;
let host: ApiHost;
let api: Api;
const ids: Record<string, number> = {};

const names = async (): Promise<string[]> => (await api.listCollections()).map((c) => c.name).sort();
const inView = async (query: SearchQuery): Promise<number[]> => (await api.search({ query, page: { offset: 0, limit: 100 } })).items.map((a) => a.id);
const keywordsOf = async (id: number): Promise<string[]> => (await api.getAsset({ id })).keywords;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-library-undo-')));
  const pics = join(dir, 'pics');
  mkdirSync(pics);
  for (const [name, colour] of [['a', '#a33'], ['b', '#3a3'], ['c', '#33a']]) await picture(join(pics, `${name}.jpg`), colour);
  ctx = openLibrary(join(dir, 'lib'));
  host = createApi(ctx, { watch: false });
  api = host.api;
  await api.addFolder({ path: pics });
  await host.scanner.waitForIdle();
  for (const n of ['a', 'b', 'c']) ids[n] = findAssetByPath(ctx, join(pics, `${n}.jpg`))!;
});
afterAll(async () => {
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('collections on the undo stack', () => {
  it('undoes a create, a rename, a move and a delete, newest first, with the members back in their order', async () => {
    const set = await api.createCollection({ name: 'Clients', kind: 'set' });
    const trip = await api.createCollection({ name: 'Trip', kind: 'manual' });
    await api.addToCollection({ id: trip.id, ids: [ids.c, ids.a] });
    await api.updateCollection({ id: trip.id, name: 'Iceland trip' });
    await api.updateCollection({ id: trip.id, parentId: set.id });
    expect((await api.listCollections()).find((c) => c.id === trip.id)).toMatchObject({ name: 'Iceland trip', parent: 'Clients' });

    await api.deleteCollection({ id: set.id });
    expect(await names()).toEqual([]);

    // Delete undone: the set and the collection inside it, same ids, photos in their custom order.
    expect(await api.undo()).toBe('Undo: delete collection set “Clients” and the 1 inside it');
    expect(await names()).toEqual(['Clients', 'Iceland trip']);
    expect(await inView({ collectionId: trip.id, sort: 'custom' })).toEqual([ids.c, ids.a]);

    expect(await api.undo()).toBe('Undo: move “Iceland trip” into “Clients”');
    expect((await api.listCollections()).find((c) => c.id === trip.id)).toMatchObject({ name: 'Iceland trip', parent: null });
    expect(await api.undo()).toBe('Undo: rename collection “Trip” to “Iceland trip”');
    expect(await names()).toEqual(['Clients', 'Trip']);
    // The membership edit made before the rename still undoes on the restored collection.
    expect(await api.undo()).toBe('Undo: add 2 photos to “Trip”');
    expect(await inView({ collectionId: trip.id, sort: 'custom' })).toEqual([]);
    expect(await api.undo()).toBe('Undo: create collection “Trip”');
    expect(await api.undo()).toBe('Undo: create collection set “Clients”');
    expect(await names()).toEqual([]);
  });

  it('a change that changes nothing is not put on the stack', async () => {
    const c = await api.createCollection({ name: 'Same', kind: 'manual' });
    await api.updateCollection({ id: c.id, name: 'Same' });
    expect(await api.undo()).toBe('Undo: create collection “Same”');
    expect(await names()).toEqual([]);
  });

  it('refuses to undo a rename back onto a name another collection has taken since, and says what to do', async () => {
    const c = await api.createCollection({ name: 'Old', kind: 'manual' });
    await api.updateCollection({ id: c.id, name: 'New' });
    // Not through the Api: the database as another edit left it, to make the clash.
    ctx.db.prepare("INSERT INTO collections (name, kind, created_at) VALUES ('Old', 'manual', 0)").run();
    await expect(api.undo()).rejects.toThrow(/Another collection is now called “Old”\. Rename it, then undo again\./);
    expect(await names()).toEqual(['New', 'Old']);
  });
});

describe('deleting a keyword, undone', () => {
  it('puts back the keyword on its photos and its keyword-list entries with their synonyms', async () => {
    await api.importKeywordList({ text: 'Animals\n\tCat\n\t\t{Kitty}\n\t\t{Feline}\n\tDog\n[Private]\n' });
    await api.editKeywords({ ids: [ids.a, ids.b], add: ['Animals|Cat'] });
    const before = listVocabulary(ctx);
    expect(before.find((e) => e.path === 'Animals|Cat')?.synonyms).toEqual(['Kitty', 'Feline']);

    const r = await api.deleteKeyword({ name: 'Animals' });
    expect(r.assetIds.sort()).toEqual([ids.a, ids.b].sort());
    expect(listVocabulary(ctx).map((e) => e.path)).toEqual(['Private']);
    expect(await keywordsOf(ids.a)).toEqual([]);

    expect(await api.undo()).toBe(`Undo: ${r.description}`);
    expect(await keywordsOf(ids.a)).toEqual(['Animals|Cat']);
    expect(await keywordsOf(ids.b)).toEqual(['Animals|Cat']);
    expect(listVocabulary(ctx)).toEqual(before);
  });

  it('undoes deleting a keyword only the keyword list holds, with its export flag', async () => {
    const before = listVocabulary(ctx);
    const r = await api.deleteKeyword({ name: 'Private' });
    expect(r.description).toBe('delete keyword “Private” from the keyword list');
    expect(listVocabulary(ctx).some((e) => e.path === 'Private')).toBe(false);
    expect(await api.undo()).toBe('Undo: delete keyword “Private” from the keyword list');
    expect(listVocabulary(ctx)).toEqual(before);
    expect(before.find((e) => e.path === 'Private')?.exportable).toBe(false);
  });
});

describe('renaming and merging keywords, undone', () => {
  it('a rename puts back the keyword-list entries (children and synonyms) as well as the photos', async () => {
    await api.importKeywordList({ text: 'Birds\n\tOwl\n\t\t{Strix}\n\tHeron\n' });
    await api.editKeywords({ ids: [ids.c], add: ['Birds|Owl'] });
    const before = listVocabulary(ctx);

    const r = await api.renameKeyword({ from: 'Birds', to: 'Avian' });
    expect(r.assetIds).toEqual([ids.c]);
    expect(listVocabulary(ctx).filter((e) => e.path.startsWith('Avian')).map((e) => e.path)).toEqual(['Avian', 'Avian|Owl', 'Avian|Heron']);
    expect(await keywordsOf(ids.c)).toEqual(['Avian|Owl']);

    expect(await api.undo()).toBe(`Undo: ${r.description}`);
    expect(await keywordsOf(ids.c)).toEqual(['Birds|Owl']);
    expect(listVocabulary(ctx)).toEqual(before);
  });

  it('a rename of a keyword only the keyword list holds is one undoable edit', async () => {
    const before = listVocabulary(ctx);
    const r = await api.renameKeyword({ from: 'Birds|Heron', to: 'Birds|Egret' });
    expect(r.description).toBe('rename keyword “Birds|Heron” to “Birds|Egret” on the keyword list');
    expect(listVocabulary(ctx).some((e) => e.path === 'Birds|Egret')).toBe(true);
    expect(await api.undo()).toBe(`Undo: ${r.description}`);
    expect(listVocabulary(ctx)).toEqual(before);
  });

  it('a merge puts back the entries it folded into the target, with their synonyms, and leaves the target as it was', async () => {
    await api.importKeywordList({ text: 'Sea\n\t{Ocean}\nWater\n\t{H2O}\n' });
    await api.editKeywords({ ids: [ids.a], add: ['Sea'] });
    await api.editKeywords({ ids: [ids.b], add: ['Water'] });
    const before = listVocabulary(ctx);
    const [aBefore, bBefore] = [await keywordsOf(ids.a), await keywordsOf(ids.b)];
    expect(aBefore).toContain('Sea');

    const r = await api.mergeKeywords({ from: ['Sea'], into: 'Water' });
    expect(r.assetIds).toEqual([ids.a]);
    expect(listVocabulary(ctx).some((e) => e.path === 'Sea')).toBe(false);
    expect(listVocabulary(ctx).find((e) => e.path === 'Water')?.synonyms).toEqual(['H2O']);
    expect(await keywordsOf(ids.a)).toContain('Water');
    expect(await keywordsOf(ids.a)).not.toContain('Sea');

    expect(await api.undo()).toBe(`Undo: ${r.description}`);
    expect(await keywordsOf(ids.a)).toEqual(aBefore);
    expect(await keywordsOf(ids.b)).toEqual(bBefore);
    expect(listVocabulary(ctx)).toEqual(before);
  });
});
