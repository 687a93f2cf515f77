import type { CollectionInfo, SmartQuery } from '../../../src-preload/contract';
import {
  addToCollection,
  collectionByName,
  createCollection,
  deleteCollection,
  listCollections,
  removeFromCollection,
  updateCollection,
} from '../../library/collections';
import type { LibraryCtx } from '../../library/context';
import { CliError, UsageError, type Parsed } from '../args';
import type { Command } from '../command';
import { assetIdsForPaths } from '../targets';
import { SEARCH_HELP, SEARCH_OPTIONS, queryFromArgs } from '../search-query';

// `tagsmith collection ...`: the shapes are issue 16's contract. A collection is addressed by
// its name (names are unique across collections, smart collections and sets).

const SUBCOMMANDS = ['list', 'create', 'smart', 'add', 'remove', 'rename', 'delete'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

/** One line of `collection list --json` (the contract): count a number, parent the set's name or null. */
interface CollectionLine {
  name: string;
  kind: CollectionInfo['kind'];
  count: number;
  parent: string | null;
}

const line = (c: CollectionInfo): CollectionLine => ({ name: c.name, kind: c.kind, count: c.count, parent: c.parent });

const KIND_WORD: Record<CollectionInfo['kind'], string> = { manual: 'collection', smart: 'smart', set: 'set' };

function human(list: CollectionInfo[]): string {
  if (!list.length) return 'No collections yet. Create one with `tagsmith collection create NAME`.';
  const depth = new Map<number, number>();
  return list
    .map((c) => {
      const d = c.parentId !== null ? (depth.get(c.parentId) ?? 0) + 1 : 0;
      depth.set(c.id, d);
      const what = c.kind === 'set' ? 'set' : `${c.count.toLocaleString('en-US')} ${c.count === 1 ? 'file' : 'files'}`;
      return `${'  '.repeat(d)}${c.name}  (${c.kind === 'set' ? what : `${KIND_WORD[c.kind]}, ${what}`})`;
    })
    .join('\n');
}

/** The search filters given on the command line (only `collection smart` takes them). */
function searchOptionsGiven(values: Parsed['values']): string[] {
  return Object.keys(SEARCH_OPTIONS).filter((k) => values[k] !== undefined && values[k] !== false && !(Array.isArray(values[k]) && values[k].length === 0));
}

function parentId(ctx: LibraryCtx, values: Parsed['values']): number | null {
  if (typeof values.parent !== 'string') return null;
  const parent = collectionByName(ctx, values.parent);
  if (parent.kind !== 'set') throw new CliError(`“${parent.name}” is not a collection set. Create a set with \`tagsmith collection create NAME --set\`.`);
  return parent.id;
}

function pathsOf(ctx: LibraryCtx, sub: Sub, rest: string[]): { name: string; ids: number[] } {
  if (rest.length < 2) throw new UsageError(`collection ${sub} needs a collection NAME and at least one PATH.`, 'collection');
  return { name: rest[0], ids: assetIdsForPaths(ctx, rest.slice(1)) };
}

export const command: Command = {
  name: 'collection',
  usage: 'collection list | create NAME [--parent SET] [--set] | smart NAME [--parent SET] [search options] | add NAME PATH... | remove NAME PATH... | rename OLD NEW | delete NAME',
  summary:
    'Collections (a photo can be in many; files are never touched), smart collections (a saved search, always up to date) and collection sets (hold collections). `--set` creates a set; `--parent SET` nests in one.',
  help: [
    'list                 every collection: name, kind (manual, smart or set), count, parent set',
    'create NAME          a new (manual) collection; with --set a collection set',
    'smart NAME [filters] a smart collection keeping every photo that matches the filters',
    'add NAME PATH...     add files to a collection (after its last photo)',
    'remove NAME PATH...  take files out of a collection (the files are not touched)',
    'rename OLD NEW       rename a collection, smart collection or set',
    'delete NAME          delete it (a set with everything in it); photos and files stay',
    '--set                create: make a collection set',
    '--parent SET         create, smart: put it inside the collection set SET',
    '',
    'Filters of `collection smart` (as `tagsmith search`; sort, order and limit do not apply):',
    ...SEARCH_HELP.filter((h) => !/^(--limit|--sort|--desc)\b/.test(h)),
  ],
  options: { ...SEARCH_OPTIONS, parent: { type: 'string' }, set: { type: 'boolean' } },
  async run(ctx, args, out) {
    const { values, positionals } = args;
    const [subText, ...rest] = positionals;
    if (subText === undefined) throw new UsageError(`collection needs a subcommand: ${SUBCOMMANDS.join(', ')}.`, 'collection');
    if (!(SUBCOMMANDS as readonly string[]).includes(subText)) throw new UsageError(`unknown collection subcommand “${subText}” (one of ${SUBCOMMANDS.join(', ')}).`, 'collection');
    const sub = subText as Sub;
    const filters = searchOptionsGiven(values);
    if (sub !== 'smart' && filters.length) {
      throw new UsageError(`--${filters[0]} is a search filter: only \`collection smart NAME\` takes filters.`, 'collection');
    }
    if (values.set && sub !== 'create') throw new UsageError('--set goes with `collection create NAME --set`.', 'collection');
    if (values.parent !== undefined && sub !== 'create' && sub !== 'smart') throw new UsageError('--parent goes with `collection create` or `collection smart`.', 'collection');

    const one = (what: string): string => {
      if (rest.length !== 1) throw new UsageError(`collection ${sub} takes exactly one ${what}.`, 'collection');
      return rest[0];
    };
    const done = (c: CollectionLine, text: string): number => {
      out.result(c, () => text);
      return 0;
    };

    switch (sub) {
      case 'list': {
        if (rest.length) throw new UsageError('collection list takes no arguments.', 'collection');
        const list = listCollections(ctx);
        out.result(list.map(line), () => human(list));
        return 0;
      }
      case 'create': {
        const name = one('NAME');
        const c = createCollection(ctx, { name, kind: values.set ? 'set' : 'manual', parentId: parentId(ctx, values) });
        return done(line(c), `Created the ${c.kind === 'set' ? 'collection set' : 'collection'} “${c.name}”${c.parent ? ` in “${c.parent}”` : ''}.`);
      }
      case 'smart': {
        if (rest.length < 1) throw new UsageError('collection smart needs a NAME.', 'collection');
        for (const k of ['limit', 'sort', 'desc']) if (values[k] !== undefined && values[k] !== false) throw new UsageError(`--${k} is the view's, not a smart collection's: leave it out.`, 'collection');
        const [name, ...words] = rest;
        const { query, prefix } = queryFromArgs(ctx, { values, positionals: words }, 'collection');
        if (prefix) throw new CliError('A smart collection keeps whole library folders: give --folder a library folder (see `tagsmith folders`), not a folder inside one.');
        const saved: SmartQuery = Object.fromEntries(Object.entries(query).filter(([k, v]) => k !== 'sort' && k !== 'order' && v !== undefined && !(Array.isArray(v) && v.length === 0)));
        const c = createCollection(ctx, { name, kind: 'smart', parentId: parentId(ctx, values), query: saved });
        return done(line(c), `Created the smart collection “${c.name}”: ${c.count.toLocaleString('en-US')} matching file${c.count === 1 ? '' : 's'} now.`);
      }
      case 'add': {
        const { name, ids } = pathsOf(ctx, sub, rest);
        const c = collectionByName(ctx, name);
        const added = await addToCollection(ctx, c.id, ids);
        const after = collectionByName(ctx, name);
        out.result({ ...line(after), added }, () => `Added ${added} of ${ids.length} file${ids.length === 1 ? '' : 's'} to “${after.name}” (${after.count} now).`);
        return 0;
      }
      case 'remove': {
        const { name, ids } = pathsOf(ctx, sub, rest);
        const c = collectionByName(ctx, name);
        const removed = await removeFromCollection(ctx, c.id, ids);
        const after = collectionByName(ctx, name);
        out.result({ ...line(after), removed }, () => `Removed ${removed} of ${ids.length} file${ids.length === 1 ? '' : 's'} from “${after.name}” (${after.count} left). The files are not touched.`);
        return 0;
      }
      case 'rename': {
        if (rest.length !== 2) throw new UsageError('collection rename takes OLD and NEW.', 'collection');
        const c = updateCollection(ctx, collectionByName(ctx, rest[0]).id, { name: rest[1] });
        return done(line(c), `Renamed “${rest[0]}” to “${c.name}”.`);
      }
      case 'delete': {
        const c = collectionByName(ctx, one('NAME'));
        deleteCollection(ctx, c.id);
        return done(line(c), `Deleted the ${c.kind === 'set' ? 'collection set' : c.kind === 'smart' ? 'smart collection' : 'collection'} “${c.name}”. No photo or file was touched.`);
      }
    }
  },
};
