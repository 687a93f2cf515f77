import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToCollection, createCollection, deleteCollection, removeFromCollection, updateCollection } from '../../src-main/library/collections';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { editKeywords, setCaption, setLabel, setRating, undo } from '../../src-main/library/edits';
import { folderRemovals, listFolders, removeFolder } from '../../src-main/library/folders';
import { resolveKeyword } from '../../src-main/library/remote';
import { assetHistory, deviceId } from '../../src-main/catalogue/change-log';
import { keywordRenames } from '../../src-main/catalogue/remote-log';
import { deleteKeyword, mergeKeywords, renameKeyword } from '../../src-main/workflows/vocabulary';
import { importKeywordList, listVocabulary } from '../../src-main/library/keyword-list';
import { deletePreset, listPresets, savePreset } from '../../src-main/library/presets';
import { syncOnce } from '../../src-main/studio/replica';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// Three replicas of one studio make random edits of every kind sync carries (keywords added and
// removed, captions, ratings, colour labels; collections made, renamed and deleted, photos put in
// and taken out of them; undo of one's own edit; a keyword renamed and two merged while others
// go on using the old names; a folder removed while others edit its photos) while apart, then
// sync in a random order, several rounds: every replica ends identical, and the result obeys the
// rules: each field holds its latest edit by the hybrid logical clock, each keyword (by its name
// after every rename) and each membership as its latest add or remove left it, a renamed keyword
// is renamed everywhere, a deleted collection stays deleted and a removed photo stays removed.
// Also: a collection made before joining, keywords deleted from the library (a photo keyworded
// apart before the delete loses it), metadata presets saved and deleted (the latest of a name
// wins) and keyword-list entries added with synonyms (the lists end identical).

const missing = await studioTestsMissing('the convergence test', { keychain: true });

/** A small seeded generator (mulberry32), so a failing run can be repeated from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYWORDS = ['beach', 'sunset', 'harbour', 'boats', 'family', 'winter', 'city', 'dog'];
const LABELS = ['red', 'yellow', 'green', 'blue', 'purple', null] as const;
/** Keywords deleted from the library and imported into the keyword list (none of them renamed or merged). */
const LISTED = ['sunset', 'boats', 'family', 'winter', 'dog'];
const PRESETS = ['Rights A', 'Rights B'];

interface State {
  keywords: string[];
  caption: string | null;
  rating: number | null;
  label: string | null;
}

function collectionsOf(ctx: LibraryCtx): Record<string, string[]> {
  const rows = ctx.db.prepare('SELECT c.name, a.rel_path AS path FROM collections c LEFT JOIN collection_assets m ON m.collection_id = c.id LEFT JOIN assets a ON a.id = m.asset_id ORDER BY c.name, a.rel_path').all() as Array<{ name: string; path: string | null }>;
  const out: Record<string, string[]> = {};
  for (const r of rows) {
    out[r.name] ??= [];
    if (r.path) out[r.name].push(r.path);
  }
  return out;
}

function stateOf(ctx: LibraryCtx): Record<string, State> {
  const rows = ctx.db.prepare('SELECT rel_path AS path, keywords_text, caption, rating, color_label AS label FROM assets WHERE removed_at IS NULL ORDER BY rel_path').all() as Array<{ path: string; keywords_text: string | null; caption: string | null; rating: number | null; label: string | null }>;
  return Object.fromEntries(rows.map((r) => [r.path, { keywords: (r.keywords_text ? r.keywords_text.split('\n') : []).sort(), caption: r.caption, rating: r.rating, label: r.label }]));
}

describe.skipIf(missing !== null)('three replicas converge', () => {
  let pgc: Postgres;
  let server: ChildProcess;
  const photos = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-shared-')));
  const libs = [0, 1, 2].map((i) => mkdtempSync(join(tmpdir(), `tagsmith-replica-${i}-`)));
  const ctxs: LibraryCtx[] = [];
  let earlyUid = '';

  beforeAll(async () => {
    mkdirSync(join(photos, 'set'));
    mkdirSync(join(photos, 'extra'));
    for (let i = 0; i < 5; i++) await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 40 * i, g: 90, b: 200 - 30 * i } } }).jpeg().toFile(join(photos, 'set', `p${i}.jpg`));
    for (let i = 0; i < 2; i++) await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 10, g: 60 * i, b: 90 } } }).jpeg().toFile(join(photos, 'extra', `x${i}.jpg`));
    pgc = startPostgres();
    pgc.createDatabase('studio');
    const run = async (lib: string | null, args: string[], input?: string) => {
      const r = await tagsmith(lib, args, { input });
      expect(r.code, r.stderr).toBe(0);
    };
    for (let i = 0; i < 3; i++) await run(null, ['serve', 'user', 'add', `member${i}`, '--role', 'editor', '--database', pgc.url('studio'), '--password-stdin'], `secret-of-${i}\n`);
    const started = await serveStudio(pgc.url('studio'));
    server = started.child;
    const url = started.served.url;
    for (let i = 0; i < 3; i++) {
      await run(libs[i], ['index', join(photos, 'set')]);
      await run(libs[i], ['index', join(photos, 'extra')]);
      if (i === 0) {
        // A collection made before joining, with a photo in it: seeded into the studio on join.
        const before = openLibrary(libs[0]);
        const early = createCollection(before, { name: 'made before joining', kind: 'manual' });
        await addToCollection(before, early.id, [before.db.prepare("SELECT id FROM assets WHERE rel_path = 'p2.jpg'").pluck().get() as number]);
        earlyUid = before.db.prepare('SELECT uid FROM collection_uids WHERE id = ?').pluck().get(early.id) as string;
        before.db.close();
      }
      await run(libs[i], ['studio', 'join', url, '--user', `member${i}`, '--password-stdin', '--yes'], `secret-of-${i}\n`);
      ctxs.push(openLibrary(libs[i]));
    }
  }, 600_000);

  afterAll(async () => {
    for (const ctx of ctxs) ctx.db.close();
    for (const lib of libs) await tagsmith(lib, ['studio', 'leave']);
    server?.kill('SIGKILL');
    pgc?.stop();
  });

  it('ends identical on every replica, by the rules, after random edits and syncs in random order', async () => {
    // A fixed seed, so CI runs the same sequence every time; TAGSMITH_CONVERGENCE_SEED tries others.
    const seed = Number(process.env.TAGSMITH_CONVERGENCE_SEED ?? 20261127);
    console.log(`convergence seed: ${seed}`);
    const rnd = random(seed);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
    const ids = (ctx: LibraryCtx) => ctx.db.prepare('SELECT id FROM assets WHERE removed_at IS NULL ORDER BY rel_path').pluck().all() as number[];

    const made = [0, 0, 0];
    const collectionIds = (ctx: LibraryCtx) => ctx.db.prepare("SELECT id FROM collections WHERE kind = 'manual' ORDER BY name").pluck().all() as number[];
    for (let round = 0; round < 8; round++) {
      for (const [r, ctx] of ctxs.entries()) {
        // Renames and merges of keywords the others go on using while apart.
        if (round === 2 && r === 0) {
          await editKeywords(ctx, [ids(ctx)[0]], ['beach'], []);
          await renameKeyword(ctx, 'beach', 'coast');
        }
        if (round === 4 && r === 1) {
          await editKeywords(ctx, [ids(ctx)[1]], ['city', 'harbour'], []);
          await mergeKeywords(ctx, ['city'], 'harbour');
        }
        // A folder removed from the library while the others still edit its photos.
        if (round === 3 && r === 2) {
          await removeFolder(ctx, listFolders(ctx).find((f) => f.path.endsWith('extra'))!.id);
          await folderRemovals(ctx);
        }
        const assets = ids(ctx);
        let undone = false;
        for (let e = 0; e < 12; e++) {
          const target = [pick(assets)];
          const kind = Math.floor(rnd() * 10);
          const collections = collectionIds(ctx);
          if (kind === 0) await editKeywords(ctx, target, [pick(KEYWORDS)], []);
          else if (kind === 1) await editKeywords(ctx, target, [], [pick(KEYWORDS)]);
          else if (kind === 2) await setCaption(ctx, target, rnd() < 0.2 ? null : `caption ${Math.floor(rnd() * 1000)}`);
          else if (kind === 3) await setRating(ctx, target, Math.floor(rnd() * 6));
          else if (kind === 4) await setLabel(ctx, target, pick(LABELS));
          else if (kind === 5 || (kind >= 6 && !collections.length)) createCollection(ctx, { name: `album ${r}.${made[r]++}`, kind: 'manual' });
          else if (kind === 6) await addToCollection(ctx, pick(collections), target);
          else if (kind === 7) await removeFromCollection(ctx, pick(collections), target);
          else if (kind === 8) {
            if (rnd() < 0.3) deleteCollection(ctx, pick(collections));
            else updateCollection(ctx, pick(collections), { name: `album ${r}.${made[r]++}` });
          } else if (e > 0 && !undone) {
            // Undo of one's own newest edit (once a round: never back to a rename).
            await undo(ctx);
            undone = true;
          } else await editKeywords(ctx, target, [pick(KEYWORDS)], []);
        }
        // The library's own lists: a keyword deleted, a preset saved or deleted, a keyword-list entry.
        const list = rnd();
        if (list < 0.25) await deleteKeyword(ctx, pick(LISTED));
        else if (list < 0.5) savePreset(ctx, pick(PRESETS), { copyright: `© ${r}.${round}` });
        else if (list < 0.65 && listPresets(ctx).length) deletePreset(ctx, pick(listPresets(ctx)).id);
        else await importKeywordList(ctx, `${pick(LISTED)}\n\t{syn ${r}.${round}}\n`);
      }
      // Reconnect in a random order; some replicas stay away this round.
      for (const i of [0, 1, 2].sort(() => rnd() - 0.5)) if (rnd() < 0.7) await syncOnce(ctxs[i], libs[i]);
    }
    // Everyone back: two full rounds bring every change everywhere.
    for (let k = 0; k < 2; k++) for (let i = 0; i < 3; i++) await syncOnce(ctxs[i], libs[i]);
    const states = ctxs.map(stateOf);
    expect(states[1]).toEqual(states[0]);
    expect(states[2]).toEqual(states[0]);
    const albums = ctxs.map(collectionsOf);
    expect(albums[1]).toEqual(albums[0]);
    expect(albums[2]).toEqual(albums[0]);

    // The rules, checked against the whole studio's history (every change, on replica 0's log).
    const db = ctxs[0].db;
    const joined = 0; // every replica joined before its first edit: the whole log counts
    const renames = keywordRenames(db, joined);
    expect(renames.map((r) => `${r.from}>${r.to}`)).toEqual(['beach>coast', 'city>harbour']);
    // A removed photo stays removed, whatever edits of it came later.
    const removed = db.prepare("SELECT DISTINCT asset_path FROM change_log WHERE op = 'asset.remove'").pluck().all() as string[];
    expect(removed.sort()).toEqual(['x0.jpg', 'x1.jpg']);
    for (const p of removed) expect(states[0][p]).toBeUndefined();
    expect(Object.keys(states[0]).sort()).toEqual(['p0.jpg', 'p1.jpg', 'p2.jpg', 'p3.jpg', 'p4.jpg']);

    const log = db.prepare("SELECT asset_path AS path, op, field, value, hlc FROM change_log WHERE (asset_path IS NOT NULL AND field IN ('caption', 'rating', 'label', 'keywords')) OR op = 'keyword.delete' ORDER BY hlc").all() as Array<{ path: string; op: string; field: string; value: string | null; hlc: string }>;
    const expected: Record<string, { keywords: Map<string, boolean>; caption?: unknown; rating?: unknown; label?: unknown }> = {};
    for (const c of log) {
      if (c.op === 'keyword.delete') {
        // Deleted from the library: off every photo that had it, whichever machine keyworded it.
        const gone = JSON.parse(c.value!) as { name: string; children: boolean };
        for (const e of Object.values(expected)) for (const k of e.keywords.keys()) if (k === gone.name || (gone.children && k.startsWith(gone.name + '|'))) e.keywords.set(k, false);
        continue;
      }
      const e = (expected[c.path] ??= { keywords: new Map() });
      const v = c.value === null ? null : (JSON.parse(c.value) as unknown);
      if (c.field === 'keywords') {
        if (c.op === 'add') e.keywords.set(resolveKeyword(renames, v as string), true);
        if (c.op === 'remove') e.keywords.set(resolveKeyword(renames, v as string), false);
      } else e[c.field as 'caption' | 'rating' | 'label'] = v;
    }
    for (const [path, e] of Object.entries(expected)) {
      const s = states[0][path];
      if (removed.includes(path)) continue;
      expect([...e.keywords].filter(([, on]) => on).map(([k]) => k).sort(), `${path} keywords (seed ${seed})`).toEqual(s.keywords);
      if ('caption' in e) expect(s.caption, `${path} caption (seed ${seed})`).toBe(e.caption);
      if ('rating' in e) expect(s.rating, `${path} rating (seed ${seed})`).toBe(e.rating);
      if ('label' in e) expect(s.label, `${path} label (seed ${seed})`).toBe(e.label);
    }
    // Renamed everywhere: no photo holds an old name, though the others used them after the rename.
    for (const s of Object.values(states[0])) expect(s.keywords.filter((k) => k === 'beach' || k === 'city')).toEqual([]);

    // Collections: alive when their latest create/restore/delete is not a delete; named by their
    // latest create or rename; each photo in one as its latest add or remove (or a restore) left it.
    const clog = db.prepare("SELECT op, field, value, asset_path AS path, hlc FROM change_log WHERE op LIKE 'collection.%' OR field = 'collections' ORDER BY hlc").all() as Array<{ op: string; field: string | null; value: string; path: string | null; hlc: string }>;
    const fold = new Map<string, { alive: boolean; name: string; members: Map<string, boolean> }>();
    const of = (uid: string) => fold.get(uid) ?? fold.set(uid, { alive: false, name: '', members: new Map() }).get(uid)!;
    for (const c of clog) {
      const v = JSON.parse(c.value) as Record<string, unknown>;
      if (c.op === 'collection.create') Object.assign(of(v.uid as string), { alive: true, name: v.name });
      else if (c.op === 'collection.update') of(v.uid as string).name = v.name as string;
      else if (c.op === 'collection.delete') {
        for (const uid of [v.uid, ...((v.insideUids as string[]) ?? [])] as string[]) of(uid).alive = false;
      } else if (c.op === 'collection.restore') {
        for (const r of v.collections as Array<{ uid: string }>) of(r.uid).alive = true;
        for (const m of v.members as Array<{ uid: string; asset: { path: string } | null }>) if (m.asset) of(m.uid).members.set(m.asset.path, true);
      } else if (c.field === 'collections' && c.path) of(v.uid as string).members.set(c.path, c.op !== 'remove');
    }
    const want: Record<string, string[]> = {};
    for (const f of fold.values()) {
      if (!f.alive) continue;
      want[f.name] = [...f.members].filter(([p, on]) => on && !removed.includes(p)).map(([p]) => p).sort();
    }
    expect(albums[0], `collections (seed ${seed})`).toEqual(want);
    expect(Object.keys(want).length, 'some collections survive').toBeGreaterThan(0);

    // Keywords deleted: some, and off every photo (an add after the delete may bring one back).
    expect(log.some((c) => c.op === 'keyword.delete'), 'some keyword deletes').toBe(true);
    // Presets: the same on every replica, each name as its latest save or delete left it.
    const presets = ctxs.map((ctx) => listPresets(ctx).map((p) => ({ name: p.name, fields: p.fields, keywords: p.keywords })));
    expect(presets[1]).toEqual(presets[0]);
    expect(presets[2]).toEqual(presets[0]);
    const plog = db.prepare("SELECT op, value FROM change_log WHERE op IN ('preset.save', 'preset.delete') ORDER BY hlc").all() as Array<{ op: string; value: string }>;
    const wantPresets = new Map<string, unknown>();
    for (const c of plog) {
      const v = JSON.parse(c.value) as { name: string; fields?: unknown };
      if (c.op === 'preset.save') wantPresets.set(v.name, v.fields);
      else wantPresets.delete(v.name);
    }
    expect(presets[0].map((p) => p.name), `presets (seed ${seed})`).toEqual([...wantPresets.keys()].sort());
    for (const p of presets[0]) expect(p.fields).toEqual(wantPresets.get(p.name));
    // The keyword list: the same entries, export flags and synonyms on every replica.
    const vocab = ctxs.map((ctx) => listVocabulary(ctx).sort((a, b) => a.path.localeCompare(b.path)).map((e) => ({ ...e, synonyms: [...e.synonyms].sort() })));
    expect(vocab[1]).toEqual(vocab[0]);
    expect(vocab[2]).toEqual(vocab[0]);
    expect(vocab[0].length, 'some keyword-list entries').toBeGreaterThan(0);
    // The collection made before joining reached every replica (the fold above holds it: there
    // unless deleted since, with its photos).
    for (const ctx of ctxs) expect(ctx.db.prepare("SELECT count(*) FROM change_log WHERE op = 'collection.create' AND instr(value, ?) > 0").pluck().get(earlyUid), 'made before joining').toBeGreaterThanOrEqual(1);
    if (fold.get(earlyUid)?.alive) for (const a of albums) expect(Object.values(a)).toContainEqual(want[fold.get(earlyUid)!.name]);

    // The history shows who changed what and when: on replica 0, member1's and member2's
    // changes under their names, its own under none (this library), newest first.
    const p0 = db.prepare("SELECT id FROM assets WHERE rel_path = 'p0.jpg'").pluck().get() as number;
    const history = assetHistory(db, p0);
    expect(new Set(history.map((h) => h.author))).toEqual(new Set([null, 'member1', 'member2']));
    expect(history.map((h) => h.at)).toEqual([...history.map((h) => h.at)].sort().reverse());
    for (const h of history) expect(h.author === null, `${h.at} ${h.op} ${h.field}`).toBe(h.device === deviceId(db));
  }, 600_000);
});
