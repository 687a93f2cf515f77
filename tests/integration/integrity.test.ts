import { closeSync, mkdtempSync, openSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLibrary } from '../../src-main/library/context';
import { catalogueIntegrity } from '../../src-main/library/integrity';
import { seedAssets, seedFolder } from '../helpers/seed';
import { turnsDuring } from '../helpers/turns';

// The catalogue check behind the system panel and `tagsmith doctor` (SQLite's quick_check,
// seconds at a million photos) runs in a worker thread over its own read-only connection: the
// thread that answers the window keeps turning meanwhile, and damage is reported, not hidden.

function library(): ReturnType<typeof openLibrary> {
  const ctx = openLibrary(mkdtempSync(join(tmpdir(), 'tagsmith-integrity-')));
  const folder = seedFolder(ctx.db, '/photos');
  seedAssets(ctx.db, Array.from({ length: 3000 }, (_, i) => ({ folderId: folder, relPath: `p${i}.jpg`, keywords: ['sky', `own ${i}`], caption: `caption ${i}` })));
  ctx.db.pragma('wal_checkpoint(TRUNCATE)');
  return ctx;
}

describe('the catalogue check', () => {
  it('says ok for a healthy catalogue, checked off the main thread', async () => {
    const ctx = library();
    const { value, turns } = await turnsDuring(catalogueIntegrity(ctx));
    expect(value).toBe('ok');
    expect(turns).toBeGreaterThan(0);
    ctx.db.close();
  });

  it('names the damage in a catalogue whose pages were overwritten', async () => {
    const ctx = library();
    const file = ctx.db.name;
    const pageSize = ctx.db.pragma('page_size', { simple: true }) as number;
    // Garbage over pages in the middle of the file (b-tree pages of the assets and their indexes).
    const fd = openSync(file, 'r+');
    const pages = Math.floor(statSync(file).size / pageSize);
    for (let p = Math.floor(pages / 3); p < Math.floor(pages / 3) + 8; p++) writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, p * pageSize);
    closeSync(fd);
    const problem = await catalogueIntegrity(ctx);
    expect(problem).not.toBe('ok');
    // quick_check's own words (a page, a tree, a row), not a failure to run it.
    expect(problem).toMatch(/page|tree|row|index|malformed/i);
    expect(problem).not.toMatch(/could not run|stopped/);
    ctx.db.close();
  });
});
