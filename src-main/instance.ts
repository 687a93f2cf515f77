import { statSync } from 'node:fs';
import { resolve } from 'node:path';

// One Tagsmith at a time: Electron's single-instance lock makes a second launch hand its
// command line to the first and quit. The first then shows its window and adds any folder
// the second was given (e.g. "Open with Tagsmith" on a folder). Kept free of Electron so the
// handler is tested as it is.

/** What the handler needs of the window. */
export interface FocusableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/** Flags of ours that take a value (the value is not a folder to add). */
const VALUE_FLAGS = new Set(['--library']);

const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The folders on a command line: existing directories, relative ones against the launching
 * process's working directory; the executable, the app's own path (`electron .` in
 * development), flags and flag values are left out.
 */
export function foldersInArgv(argv: readonly string[], workingDirectory: string, appPath: string | null): string[] {
  const out: string[] = [];
  const app = appPath ? resolve(appPath) : null;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    const abs = resolve(workingDirectory, a);
    if (abs === app || !isDirectory(abs) || out.includes(abs)) continue;
    out.push(abs);
  }
  return out;
}

export interface SecondInstanceDeps {
  window(): FocusableWindow | null;
  /** Add a folder to the library (and scan it); an error is reported, never thrown. */
  addFolder(path: string): Promise<void>;
  appPath: string | null;
}

/** The 'second-instance' listener: focus the first window, add the folders it was given. */
export function secondInstanceHandler(deps: SecondInstanceDeps): (argv: readonly string[], workingDirectory: string) => Promise<string[]> {
  return async (argv, workingDirectory) => {
    const win = deps.window();
    if (win && !win.isDestroyed()) {
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
    }
    const folders = foldersInArgv(argv, workingDirectory, deps.appPath);
    for (const f of folders) await deps.addFolder(f);
    return folders;
  };
}
