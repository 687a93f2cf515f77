import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catchProcessErrors, flushLog, log, setLogFile } from '../../src-main/core/log';

// The log file through electron-log: asynchronous writes, rotation by size into main.old.log,
// and main-process errors outside any handler written to it.

const dir = mkdtempSync(join(tmpdir(), 'tagsmith-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the log file', () => {
  it('is rotated by size: main.log passes the cap, moves to main.old.log, and a new main.log starts', async () => {
    const file = join(dir, 'logs', 'main.log');
    const cap = 4096;
    setLogFile(file, { maxBytes: cap });
    const line = (i: number) => `scan of folder ${i} finished ${'·'.repeat(60)}`;
    // As an app logs: a few lines at a time, each batch written before the next comes.
    for (let batch = 0; batch < 12; batch++) {
      for (let i = 0; i < 5; i++) log.info(line(batch * 5 + i));
      await flushLog();
    }
    const old = join(dir, 'logs', 'main.old.log');
    expect(existsSync(old)).toBe(true);
    expect(statSync(old).size).toBeGreaterThan(cap);
    // A batch may land after the size check; never much more than the cap.
    expect(statSync(file).size).toBeLessThan(cap + 5 * Buffer.byteLength(line(99) + '\n') + 200);
    const current = readFileSync(file, 'utf8');
    expect(current).toContain(line(59));
    expect(current).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO scan of folder/m);
    // Two files at most: the older log is replaced, not kept forever.
    log.info('after rotation');
    await flushLog();
    expect(readFileSync(file, 'utf8')).toContain('after rotation');
  });

  it('records errors outside any handler: an unhandled rejection and an uncaught exception', async () => {
    const file = join(dir, 'crash', 'main.log');
    setLogFile(file);
    const fatal: unknown[] = [];
    const uninstall = catchProcessErrors((e) => fatal.push(e));
    try {
      process.emit('unhandledRejection', new Error('the promise nobody awaited'), Promise.resolve());
      process.emit('uncaughtException', new Error('thrown from a timer'));
    } finally {
      uninstall();
    }
    await flushLog();
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/ERROR unhandled promise rejection the promise nobody awaited/);
    expect(text).toMatch(/ERROR uncaught exception thrown from a timer\nError: thrown from a timer\n\s+at /);
    expect(fatal).toHaveLength(1);
  });
});
