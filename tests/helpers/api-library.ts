import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApi, type ApiHost } from '../../src-main/api';
import { openLibrary, type LibraryCtx } from '../../src-main/library/context';
import { closeMetadataReader } from '../../src-main/metadata/reader';

/** A library as the window sees it: pictures in a folder, added and scanned through the Api. */
export interface ApiLibrary {
  root: string;
  photos: string;
  ctx: LibraryCtx;
  host: ApiHost;
  /** each photo's id by its file name */
  ids: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Make the pictures (`make` writes them into `photos`; `root` is there for anything else), open
 * a library, add the folder through the Api and wait for its scan.
 */
export async function apiLibrary(prefix: string, make: (photos: string, root: string) => Promise<void>): Promise<ApiLibrary> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const photos = join(root, 'photos');
  mkdirSync(photos);
  await make(photos, root);
  const ctx = openLibrary(join(root, 'lib'));
  const host = createApi(ctx, { watch: false });
  await host.api.addFolder({ path: photos });
  await host.scanner.waitForIdle();
  const ids = new Map<string, number>();
  const found = await host.api.search({ query: {}, page: { offset: 0, limit: 50 } });
  for (const a of found.items) ids.set(a.name, a.id);
  return {
    root,
    photos,
    ctx,
    host,
    ids,
    async close() {
      await host.dispose();
      ctx.db.close();
      await closeMetadataReader();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
