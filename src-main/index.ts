import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, net, protocol, screen, session, shell, type MessageBoxOptions } from 'electron';
import { EVENT_CHANNEL, INVOKE_CHANNEL } from '../src-preload/api-methods';
import { createApi, type ApiHost } from './api';
import { MEDIA_SCHEME, resolveMediaPath } from './core/media';
import { resolveDataDir } from './core/paths';
import { adoptSystemProxy } from './core/proxy';
import { readAppSettings, updateAppSettings } from './core/app-settings';
import { catchProcessErrors, flushLog, log, logFile, setLogFile } from './core/log';
import { applyPendingRestore, holdLibrary, requestRestore, startDailyBackups, type BackupInfo, type FileCheck } from './library/backup';
import type { LibraryCtx } from './library/context';
import { openCheckedLibrary } from './library/recover';
import { listFolders } from './library/folders';
import { DEFAULT_BASE_URL } from './service/client';
import { foldersInArgv, secondInstanceHandler } from './instance';
import { CONTENT_SECURITY_POLICY, isTrustedSender, mainWindowOptions, restoredBounds } from './window';

// Electron main: one window, one IPC channel for the Api, one for events, and the media
// protocol. All logic lives in the domain folders; this file only wires them to Electron.

protocol.registerSchemesAsPrivileged([
  { scheme: MEDIA_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
]);

// One Tagsmith at a time (two would run two scanners, watchers and exiftool pools on one
// library): a second launch hands its command line to this one (see instance.ts) and quits.
if (!app.requestSingleInstanceLock()) {
  app.quit();
  process.exit(0);
}

// Main-process errors outside any handler: logged, and the user told, never a silent death.
catchProcessErrors((err) => {
  if (app.isReady()) {
    dialog.showErrorBox('Tagsmith ran into an error', `${err instanceof Error ? err.message : String(err)}\n\nThe details are in the log: ${logFile() ?? 'not available'}`);
  }
});

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererUrl = process.env.ELECTRON_RENDERER_URL ?? pathToFileURL(join(here, '../renderer/index.html')).href;

/** The better-sqlite3 build for Electron's ABI, when one was made (see README, packaging). */
function electronSqliteBinding(): string | undefined {
  const candidates = [
    join(process.resourcesPath ?? '', 'native', 'better_sqlite3.node'),
    join(here, '../../native/electron/better_sqlite3.node'),
  ];
  return candidates.find((p) => existsSync(p));
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

let host: ApiHost | null = null;
let ctx: LibraryCtx | null = null;
let releaseLibrary = (): void => {};
let stopBackups = (): void => {};

/** A damaged catalogue: offer the newest backup that passes SQLite's check. */
async function askToRestore(problem: string, backup: BackupInfo): Promise<boolean> {
  log.error(`the catalogue is damaged: ${problem}`);
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    buttons: ['Restore the backup', 'Quit'],
    defaultId: 0,
    cancelId: 1,
    message: 'The Tagsmith catalogue is damaged',
    detail:
      `SQLite's check found: ${problem.slice(0, 300)}\n\n` +
      `Restore the backup from ${new Date(backup.createdAt).toLocaleString()}? Changes made since then are lost; ` +
      'the damaged catalogue is kept beside the backups.',
  });
  return response === 0;
}

/**
 * Damage found by the check that ran after the open: the app keeps running, and the newest
 * good backup is restored as it starts again (the same way as from Settings › Library) if the
 * user agrees.
 */
async function tellDamaged(dataDir: string, problem: string, backup: BackupInfo | null): Promise<void> {
  log.error(`the catalogue check after the open found damage: ${problem}`);
  // Daily copies of the damaged catalogue would push the good backups out.
  stopBackups();
  const found = `SQLite's check found: ${problem.slice(0, 300)}`;
  const options: MessageBoxOptions = backup
    ? {
        type: 'warning',
        buttons: ['Restore and restart now', 'Restore at the next start', 'Not now'],
        defaultId: 0,
        cancelId: 2,
        message: 'The Tagsmith catalogue is damaged',
        detail:
          `${found}\n\nRestore the backup from ${new Date(backup.createdAt).toLocaleString()}? Changes made since then are lost; ` +
          'the damaged catalogue is kept beside the backups. Not now: you are asked again at the next start.',
      }
    : {
        type: 'error',
        message: 'The Tagsmith catalogue is damaged',
        detail: `${found}\n\nNo backup passes the check. Keep a copy of ${dataDir} before making more changes. The details are in the log: ${logFile() ?? 'not available'}`,
      };
  const { response } = await (mainWindow && !mainWindow.isDestroyed() ? dialog.showMessageBox(mainWindow, options) : dialog.showMessageBox(options));
  if (!backup || response === 2) return;
  requestRestore(dataDir, backup.path);
  log.info(`${backup.path} is restored as Tagsmith starts again`);
  if (response === 0) {
    app.relaunch();
    app.quit();
  }
}

function registerMediaProtocol(library: LibraryCtx): void {
  protocol.handle(MEDIA_SCHEME, async (request) => {
    const roots = [library.paths.cacheDir, ...listFolders(library).map((f) => f.path)];
    const resolved = resolveMediaPath(new URL(request.url).pathname, roots);
    if (!resolved.ok) return new Response(resolved.reason, { status: resolved.status });
    return net.fetch(pathToFileURL(resolved.path).href, { headers: request.headers });
  });
}

function registerIpc(api: ApiHost): void {
  ipcMain.handle(INVOKE_CHANNEL, (event, method: unknown, args: unknown) => {
    if (!isTrustedSender(event.senderFrame?.url, rendererUrl)) {
      log.warn('refused an Api call from an untrusted frame');
      return { ok: false, error: { kind: 'validation', message: 'Refused: request from an untrusted page.' } };
    }
    return api.invoke(String(method), args);
  });
}

function hardenContents(): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      // External links open in the browser; the app never opens windows of its own content.
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      if (url !== rendererUrl) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}

let mainWindow: BrowserWindow | null = null;

async function createWindow(library: LibraryCtx): Promise<void> {
  const dataDir = library.paths.dataDir;
  const saved = restoredBounds(readAppSettings(dataDir).window, screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow({ ...mainWindowOptions(join(here, '../preload/index.cjs')), ...(saved?.bounds ?? {}) });
  mainWindow = win;
  win.once('ready-to-show', () => {
    if (saved?.maximized) win.maximize();
    win.show();
  });
  // The size and place the user gave the window, for the next start.
  win.on('close', () => {
    const b = win.getNormalBounds();
    updateAppSettings(dataDir, { window: { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() } });
  });
  const forward = library.events.onAny((name, payload) => {
    if (!win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, name, payload);
  });
  win.on('closed', forward);
  await win.loadURL(rendererUrl);
}

// A failure of the start-up is logged by catchProcessErrors (unhandled rejection).
void app.whenReady().then(async () => {
  const dataDir = resolveDataDir(argValue('--library'));
  setLogFile(join(dataDir, 'logs', 'main.log'));
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  hardenContents();
  const nativeBinding = electronSqliteBinding();
  let background: Promise<FileCheck> | null;
  try {
    // A restore asked for from Settings › Library happens now, before the catalogue is opened.
    const restored = applyPendingRestore(dataDir, { nativeBinding });
    if (restored) log.info(`restored the catalogue from ${restored.restored}; the previous one is kept as ${restored.kept}`);
    // Checked first only after a session that did not end cleanly; otherwise checked meanwhile.
    ({ ctx, background } = await openCheckedLibrary(dataDir, { nativeBinding, onDamaged: askToRestore }));
  } catch (err) {
    log.error('could not open the library', err);
    dialog.showErrorBox('Tagsmith could not open its library', `${(err as Error).message}\n\nLibrary: ${dataDir}`);
    app.exit(1);
    return;
  }
  // Taken now: a lock left from here on tells the next start that this session did not end cleanly.
  releaseLibrary = holdLibrary(dataDir);
  stopBackups = startDailyBackups(ctx.db, dataDir, (err) => log.error('daily catalogue backup failed', err));
  void background?.then(
    ({ check, backup }) => (check.ok ? log.info('the catalogue check found no damage') : tellDamaged(dataDir, check.problem, backup)),
    (err: unknown) => log.error('the catalogue check could not run', err),
  );
  // The system proxy (macOS/Windows settings, PAC, GNOME), unless HTTPS_PROXY is set: the
  // service client reads the variables when it is made.
  try {
    const proxy = adoptSystemProxy(await session.defaultSession.resolveProxy(DEFAULT_BASE_URL));
    if (proxy) log.info(`using the system proxy ${proxy}`);
  } catch (err) {
    log.warn('could not read the system proxy settings', err);
  }
  host = createApi(ctx, {
    native: true,
    rescanOnStart: true,
    backfillFingerprints: true,
    pickFolder: async () => {
      const res = await dialog.showOpenDialog({ properties: ['openDirectory', 'multiSelections'] });
      return res.canceled ? null : (res.filePaths[0] ?? null);
    },
    relaunch: () => {
      app.relaunch();
      app.quit();
    },
    pickSavePath: async (defaultName) => {
      const text = defaultName.toLowerCase().endsWith('.txt');
      const res = await dialog.showSaveDialog({ defaultPath: defaultName, filters: [text ? { name: 'Keyword list', extensions: ['txt'] } : { name: 'CSV', extensions: ['csv'] }] });
      return res.canceled ? null : (res.filePath ?? null);
    },
  });
  registerMediaProtocol(ctx);
  registerIpc(host);
  const api = host.api;
  const addFolder = async (path: string): Promise<void> => {
    try {
      await api.addFolder({ path });
    } catch (err) {
      // Already in the library, or not readable: said in the log; the window shows the library as it is.
      log.warn(`could not add ${path} from the command line`, err);
    }
  };
  const onSecondInstance = secondInstanceHandler({ window: () => mainWindow, addFolder, appPath: app.isPackaged ? null : app.getAppPath() });
  app.on('second-instance', (_event, argv, workingDirectory) => void onSecondInstance(argv, workingDirectory));
  await createWindow(ctx);
  // A folder on this launch's own command line is added too.
  for (const f of foldersInArgv(process.argv, process.cwd(), app.isPackaged ? null : app.getAppPath())) await addFolder(f);
  const library = ctx;
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow(library);
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', (event) => {
  if (!host) return;
  event.preventDefault();
  const h = host;
  host = null;
  stopBackups();
  void h
    .dispose()
    .finally(() => flushLog())
    .finally(() => {
      releaseLibrary();
      app.quit();
    });
});
