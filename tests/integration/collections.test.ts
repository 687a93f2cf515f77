import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api, CollectionInfo, SearchQuery } from '../../src-preload/contract';
import { createApi, type ApiHost } from '../../src-main/api';
import { findAssetByPath } from '../../src-main/library/assets';
import { openLibrary } from '../../src-main/library/context';

// Collections (issue 16): manual collections with a custom order, smart collections that stay
// live through edits, scans and undo, sets, and the CLI's contract. Real files (sharp), a real
// scan, a real SQLite catalogue; the CLI as a child process.

const BIN = resolve(__dirname, '../../bin/tagsmith.js');
const picture = (file: string, background: string) => sharp({ create: { width: 48, height: 32, channels: 3, background } }).jpeg().toFile(file);

describe('collections through the Api', () => {
  let host: ApiHost;
  let api: Api;
  let pics: string;
  let dir: string;
  const ids: Record<string, number> = {};

  const inView = async (query: SearchQuery): Promise<number[]> => (await api.search({ query, page: { offset: 0, limit: 100 } })).items.map((a) => a.id);
  const byName = async (name: string): Promise<CollectionInfo> => (await api.listCollections()).find((c) => c.name === name)!;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-collections-')));
    pics = join(dir, 'pics');
    mkdirSync(pics);
    for (const [name, colour] of [['a', '#a33'], ['b', '#3a3'], ['c', '#33a'], ['d', '#aa3']]) await picture(join(pics, `${name}.jpg`), colour);
    const ctx = openLibrary(join(dir, 'lib'));
    host = createApi(ctx, { watch: false });
    api = host.api;
    await api.addFolder({ path: pics });
    await host.scanner.waitForIdle();
    for (const n of ['a', 'b', 'c', 'd']) ids[n] = findAssetByPath(ctx, join(pics, `${n}.jpg`))!;
  });
  afterAll(async () => {
    await host?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds photos in a custom order; add, reorder and remove are undoable and never touch the files', async () => {
    const before = readFileSync(join(pics, 'a.jpg'));
    const set = await api.createCollection({ name: 'Clients', kind: 'set' });
    const portfolio = await api.createCollection({ name: 'Portfolio', kind: 'manual', parentId: set.id });
    expect(portfolio).toMatchObject({ kind: 'manual', parent: 'Clients', count: 0, query: null });

    expect(await api.addToCollection({ id: portfolio.id, ids: [ids.c, ids.a, ids.b] })).toEqual({ added: 3 });
    // Adding again adds nothing and keeps the order.
    expect(await api.addToCollection({ id: portfolio.id, ids: [ids.a] })).toEqual({ added: 0 });
    const custom: SearchQuery = { collectionId: portfolio.id, sort: 'custom' };
    expect(await inView(custom)).toEqual([ids.c, ids.a, ids.b]);
    expect(await inView({ ...custom, order: 'desc' })).toEqual([ids.b, ids.a, ids.c]);
    expect((await byName('Portfolio')).count).toBe(3);
    expect((await byName('Clients')).count).toBe(3);

    // Drag b before c, then a to the end.
    await api.reorderCollection({ id: portfolio.id, ids: [ids.b], beforeId: ids.c });
    expect(await inView(custom)).toEqual([ids.b, ids.c, ids.a]);
    await api.reorderCollection({ id: portfolio.id, ids: [ids.c], beforeId: null });
    expect(await inView(custom)).toEqual([ids.b, ids.a, ids.c]);
    expect(await api.undo()).toBe('Undo: reorder 1 photo in “Portfolio”');
    expect(await inView(custom)).toEqual([ids.b, ids.c, ids.a]);

    // Many moves between the same two photos: the order stays right when the gaps run out.
    for (let i = 0; i < 60; i++) await api.reorderCollection({ id: portfolio.id, ids: [i % 2 ? ids.a : ids.c], beforeId: ids.b });
    expect(await inView(custom)).toEqual([ids.c, ids.a, ids.b]);

    expect(await api.removeFromCollection({ id: portfolio.id, ids: [ids.c] })).toEqual({ removed: 1 });
    expect(await inView(custom)).toEqual([ids.a, ids.b]);
    expect(await api.undo()).toBe('Undo: remove 1 photo from “Portfolio”');
    // Back in its old place.
    expect(await inView(custom)).toEqual([ids.c, ids.a, ids.b]);
    // The photo is still in the library, and its file is as it was.
    expect(await inView({})).toContain(ids.c);
    expect(readFileSync(join(pics, 'a.jpg')).equals(before)).toBe(true);

    // Other filters combine with the collection.
    await api.setRating({ ids: [ids.b], rating: 3 });
    expect(await inView({ collectionId: portfolio.id, minRating: 3 })).toEqual([ids.b]);
  });

  it('keeps a smart collection live through edits, undo and scans, and its count with it', async () => {
    const smart = await api.createCollection({ name: 'Rated 4+ without keywords', kind: 'smart', query: { minRating: 4, noKeywords: true } });
    expect(smart).toMatchObject({ kind: 'smart', count: 0, query: { minRating: 4, noKeywords: true } });

    // An edit brings photos in...
    await api.setRating({ ids: [ids.a, ids.d], rating: 5 });
    expect((await byName(smart.name)).count).toBe(2);
    expect((await inView({ collectionId: smart.id })).sort()).toEqual([ids.a, ids.d].sort());
    // ...another takes one out, and undo brings it back.
    await api.editKeywords({ ids: [ids.d], add: ['harbour'] });
    expect(await inView({ collectionId: smart.id })).toEqual([ids.a]);
    expect(await api.undo()).toMatch(/^Undo: add keyword “harbour”/);
    expect((await inView({ collectionId: smart.id })).sort()).toEqual([ids.a, ids.d].sort());

    // A scan: a deleted file leaves, a new one (rated in its XMP) arrives.
    rmSync(join(pics, 'd.jpg'));
    await picture(join(pics, 'e.jpg'), '#3aa');
    execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP-xmp:Rating=4', join(pics, 'e.jpg')]);
    await api.rescan({});
    await host.scanner.waitForIdle();
    const names = async () => (await api.search({ query: { collectionId: smart.id }, page: { offset: 0, limit: 10 } })).items.map((a) => a.name).sort();
    expect(await names()).toEqual(['a.jpg', 'e.jpg']);
    expect((await byName(smart.name)).count).toBe(2);

    // Editing the search changes what it keeps; sort and order stay the view's.
    const edited = await api.updateCollection({ id: smart.id, query: { minRating: 5 } });
    expect(edited).toMatchObject({ count: 1, query: { minRating: 5 } });
    expect(await names()).toEqual(['a.jpg']);

    // A smart collection over a manual one: membership is one more filter.
    const portfolio = await byName('Portfolio');
    const best = await api.createCollection({ name: 'Best of portfolio', kind: 'smart', query: { collectionId: portfolio.id, minRating: 3 } });
    expect(best.count).toBe(2); // a (5 stars) and b (3 stars)
    await api.removeFromCollection({ id: portfolio.id, ids: [ids.b] });
    expect((await byName('Best of portfolio')).count).toBe(1);
    await api.undo();
    expect((await byName('Best of portfolio')).count).toBe(2);
  });

  it('refuses what would break: loops, photos added to a smart collection or a set, duplicate names, deleting what a smart collection uses', async () => {
    const set = await byName('Clients');
    const loop = await api.createCollection({ name: 'Loop', kind: 'smart', parentId: set.id, query: { minRating: 1 } });
    // Loop would keep the photos of the set it is in: itself.
    expect(await host.invoke('updateCollection', { id: loop.id, query: { collectionId: set.id } })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect((await byName('Loop')).query).toEqual({ minRating: 1 });
    expect(await host.invoke('addToCollection', { id: loop.id, ids: [ids.a] })).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('smart collection') } });
    expect(await host.invoke('addToCollection', { id: set.id, ids: [ids.a] })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(await host.invoke('createCollection', { name: 'portfolio', kind: 'manual' })).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect(await host.invoke('createCollection', { name: 'In a photo collection', kind: 'manual', parentId: (await byName('Portfolio')).id })).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
    expect(await host.invoke('deleteCollection', { id: (await byName('Portfolio')).id })).toMatchObject({ ok: false, error: { kind: 'conflict', message: expect.stringContaining('Best of portfolio') } });
    expect(await host.invoke('search', { query: { collectionId: 1, sort: 'random' }, page: { offset: 0, limit: 1 } })).toMatchObject({ ok: false });

    // Deleting a set deletes what it holds; the photos stay.
    await api.deleteCollection({ id: (await byName('Best of portfolio')).id });
    await api.deleteCollection({ id: set.id });
    expect((await api.listCollections()).map((c) => c.name)).toEqual(['Rated 4+ without keywords']);
    expect((await inView({})).length).toBe(4);
  });
});

describe('collections through the CLI (the contract)', () => {
  let root: string;
  let photos: string;
  let library: string;
  const p = (name: string): string => join(photos, name);
  const tagsmith = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, '--library', library, ...args], { encoding: 'utf8', input: '', env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1' } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: <T,>() => JSON.parse(r.stdout) as T };
  };
  const found = (...args: string[]): string[] => {
    const r = tagsmith('search', ...args, '--json');
    expect(r.code, r.stderr).toBe(0);
    return r.json<{ path: string }[]>().map((a) => a.path);
  };

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-collections-cli-')));
    photos = join(root, 'photos');
    library = join(root, 'lib');
    mkdirSync(photos);
    for (const [name, colour] of [['one', '#a33'], ['two', '#3a3'], ['three', '#33a']]) await picture(p(`${name}.jpg`), colour);
    expect(tagsmith('index', photos).code).toBe(0);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('list, create (sets with --set, nesting with --parent), smart, add, remove, rename, delete; search --collection; show --json collections', () => {
    expect(tagsmith('collection', 'list', '--json').json()).toEqual([]);
    expect(tagsmith('collection', 'create', 'Work', '--set').code).toBe(0);
    expect(tagsmith('collection', 'create', 'To submit', '--parent', 'Work').code).toBe(0);
    const add = tagsmith('collection', 'add', 'To submit', p('three.jpg'), p('one.jpg'), '--json');
    expect(add.code, add.stderr).toBe(0);
    expect(add.json()).toMatchObject({ name: 'To submit', count: 2, added: 2 });
    expect(tagsmith('rate', p('two.jpg'), '--stars', '4').code).toBe(0);
    const smart = tagsmith('collection', 'smart', 'Rated', '--min-rating', '3', '--json');
    expect(smart.code, smart.stderr).toBe(0);

    const list = tagsmith('collection', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(list.json()).toEqual([
      { name: 'Rated', kind: 'smart', count: 1, parent: null },
      { name: 'Work', kind: 'set', count: 2, parent: null },
      { name: 'To submit', kind: 'manual', count: 2, parent: 'Work' },
    ]);

    // Members in the collection's order (custom) or any other; a smart collection's live matches.
    expect(found('--collection', 'To submit', '--sort', 'custom')).toEqual([p('three.jpg'), p('one.jpg')]);
    expect(found('--collection', 'To submit', '--sort', 'name')).toEqual([p('one.jpg'), p('three.jpg')]);
    expect(found('--collection', 'Rated')).toEqual([p('two.jpg')]);
    expect(tagsmith('rate', p('one.jpg'), '--stars', '5').code).toBe(0);
    expect(found('--collection', 'Rated', '--sort', 'name')).toEqual([p('one.jpg'), p('two.jpg')]);
    expect(found('--collection', 'To submit', '--min-rating', '5')).toEqual([p('one.jpg')]);

    expect(tagsmith('show', p('one.jpg'), '--json').json()).toMatchObject({ label: null, collections: ['To submit'] });
    expect(tagsmith('show', p('two.jpg'), '--json').json()).toMatchObject({ collections: [] });

    const removed = tagsmith('collection', 'remove', 'To submit', p('one.jpg'), '--json');
    expect(removed.json()).toMatchObject({ count: 1, removed: 1 });
    expect(tagsmith('undo').stdout).toContain('remove 1 photo from “To submit”');
    expect(found('--collection', 'To submit', '--sort', 'custom')).toEqual([p('three.jpg'), p('one.jpg')]);

    expect(tagsmith('collection', 'rename', 'To submit', 'Submitted').code).toBe(0);
    expect(found('--collection', 'submitted')).toHaveLength(2);
    expect(tagsmith('collection', 'delete', 'Submitted').code).toBe(0);
    expect(tagsmith('collection', 'list', '--json').json()).toEqual([
      { name: 'Rated', kind: 'smart', count: 2, parent: null },
      { name: 'Work', kind: 'set', count: 0, parent: null },
    ]);
  }, 300_000);

  it('says what went wrong: an unknown collection (naming those there are), a smart collection by hand, a bad subcommand', () => {
    const unknown = tagsmith('search', '--collection', 'Nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('There is no collection called “Nope”. The collections are: “Rated”, “Work”.');
    const byHand = tagsmith('collection', 'add', 'Rated', p('three.jpg'));
    expect(byHand.code).toBe(1);
    expect(byHand.stderr).toContain('smart collection');
    expect(tagsmith('collection', 'frobnicate').code).toBe(2);
    expect(tagsmith('collection', 'add', 'Work', p('three.jpg'), '--min-rating', '2').code).toBe(2);
    expect(tagsmith('collection', 'create', 'rated').code).toBe(1);
    expect(tagsmith('collection', 'add', 'Work', join(photos, 'missing.jpg')).stderr).toContain('does not exist');
  }, 300_000);
});
