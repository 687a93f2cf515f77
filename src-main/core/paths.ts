import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where the catalogue lives: `--library DIR`, else `TAGSMITH_HOME`, else the platform's
 * per-user data directory. The Electron app and the CLI use the same rule, so they share
 * one library.
 */
export function resolveDataDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env.TAGSMITH_HOME) return resolve(env.TAGSMITH_HOME);
  const home = homedir();
  switch (process.platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Tagsmith');
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Tagsmith');
    default:
      return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'tagsmith');
  }
}

export interface LibraryPaths {
  dataDir: string;
  dbFile: string;
  cacheDir: string;
  thumbsDir: string;
  previewsDir: string;
}

export function libraryPaths(dataDir: string): LibraryPaths {
  const cacheDir = join(dataDir, 'cache');
  return {
    dataDir,
    dbFile: join(dataDir, 'library.sqlite'),
    cacheDir,
    thumbsDir: join(cacheDir, 'thumbs'),
    previewsDir: join(cacheDir, 'previews'),
  };
}
