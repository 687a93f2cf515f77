import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// A small logger: to stderr, and to a file when one is set (the app sets <data>/logs/main.log).
// Never pass secrets here; errors are logged with their stack for the developer only.

let file: string | null = null;

export function setLogFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  file = path;
}

function write(level: string, message: string, err?: unknown): void {
  const detail = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : err === undefined ? '' : String(err);
  const line = `${new Date().toISOString()} ${level} ${message}${detail ? ' ' + detail : ''}\n`;
  if (process.env.TAGSMITH_QUIET !== '1') process.stderr.write(line);
  if (file) {
    try {
      appendFileSync(file, line);
    } catch {
      /* logging must never break the app */
    }
  }
}

export const log = {
  info: (message: string, err?: unknown) => write('INFO', message, err),
  warn: (message: string, err?: unknown) => write('WARN', message, err),
  error: (message: string, err?: unknown) => write('ERROR', message, err),
};
