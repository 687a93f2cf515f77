import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import electronLog from 'electron-log/node';

// The log: to stderr, and to a file when one is set (the app sets <data>/logs/main.log).
// Written through electron-log (maintained; the same library Electron apps use): file writes
// are queued and written asynchronously, off the main thread's hot path, and the file is
// rotated by size (main.log -> main.old.log, so the logs never take more than twice the cap).
// Renderer errors reach the same file through the Api (reportError). Never pass secrets here;
// errors are logged with their stack for the developer only.

/** The size at which main.log is rotated to main.old.log. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;

const logger = electronLog.create({ logId: 'tagsmith' });
logger.transports.console.level = false;
logger.transports.file.level = false;
logger.transports.file.sync = false;
logger.transports.file.format = ({ message }) => [`${message.date.toISOString()} ${message.level.toUpperCase()} ${message.data.map(String).join(' ')}`];

let file: string | null = null;

export function setLogFile(path: string, opts: { maxBytes?: number } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  file = path;
  logger.transports.file.resolvePathFn = () => path;
  logger.transports.file.maxSize = opts.maxBytes ?? LOG_MAX_BYTES;
  logger.transports.file.level = 'info';
}

export function logFile(): string | null {
  return file;
}

type Level = 'info' | 'warn' | 'error';

function write(level: Level, message: string, err?: unknown): void {
  const detail = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : err === undefined ? '' : String(err);
  const text = `${message}${detail ? ' ' + detail : ''}`;
  if (process.env.TAGSMITH_QUIET !== '1') process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase()} ${text}\n`);
  if (!file) return;
  try {
    logger[level](text);
  } catch {
    /* logging must never break the app */
  }
}

export const log = {
  info: (message: string, err?: unknown) => write('info', message, err),
  warn: (message: string, err?: unknown) => write('warn', message, err),
  error: (message: string, err?: unknown) => write('error', message, err),
};

interface QueuedFile {
  hasActiveAsyncWriting?: boolean;
  asyncWriteQueue?: unknown[];
}

/** Resolves once every line logged so far is in the file (before exit, and in tests). */
export async function flushLog(): Promise<void> {
  if (!file) return;
  // electron-log's file keeps its queue on the File object; it has no flush of its own.
  const f = logger.transports.file.getFile() as unknown as QueuedFile;
  while (f.hasActiveAsyncWriting || (f.asyncWriteQueue?.length ?? 0) > 0) {
    await nextTurn();
  }
}

/**
 * Main-process errors outside any handler are logged (never a silent death); `onFatal` tells
 * the user (the app shows a dialog). Returns the uninstall.
 */
export function catchProcessErrors(onFatal?: (err: unknown) => void): () => void {
  const onException = (err: unknown) => {
    log.error('uncaught exception', err);
    onFatal?.(err);
  };
  const onRejection = (reason: unknown) => log.error('unhandled promise rejection', reason);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
