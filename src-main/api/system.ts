import { statSync } from 'node:fs';
import type { SystemReport } from '../../src-preload/contract';
import { checkTools } from '../core/tools';
import type { LibraryCtx } from '../library/context';
import type { ServiceHost } from './service';

// The health check behind `tagsmith doctor` and Settings › System: the outside tools, the
// catalogue (size, assets, SQLite's quick_check), and which service and credentials are used.

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** SQLite's quick_check: 'ok', or the first problems it lists. */
export function catalogueIntegrity(ctx: LibraryCtx): string {
  const rows = ctx.db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all();
  const lines = rows.map((r) => r.quick_check);
  return lines.length === 1 && lines[0] === 'ok' ? 'ok' : lines.join('; ');
}

export async function systemReport(ctx: LibraryCtx, service: ServiceHost): Promise<SystemReport> {
  const [tools, settings] = await Promise.all([checkTools(), service.methods.serviceSettings()]);
  const db = ctx.paths.dbFile;
  const assets = ctx.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM assets WHERE removed_at IS NULL').get()!.n;
  const source = settings.credentials.source;
  return {
    tools,
    library: {
      path: ctx.paths.dataDir,
      sizeBytes: fileSize(db) + fileSize(`${db}-wal`),
      assets,
      integrity: catalogueIntegrity(ctx),
    },
    // Credentials held for this session only (no keychain) are not stored anywhere: 'none'.
    service: { url: settings.baseUrl, credentials: source === 'keychain' || source === 'env' ? source : 'none' },
  };
}
