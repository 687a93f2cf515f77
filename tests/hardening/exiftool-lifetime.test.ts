// exiftool in -stay_open mode outlives a crashed parent for good unless told otherwise; the
// shared pool's processes must keep serving while the app lives and end once it is killed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ROOT, until } from './helpers';

/** Running (a zombie waiting for a reaper that may never come counts as ended). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): signal 0 is all there is
  }
};

describe.skipIf(process.platform === 'win32')('the shared exiftool processes', () => {
  it('keep serving through idle periods, and end soon after the app is killed with SIGKILL', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tagsmith-et-')), 'a.jpg');
    await sharp({ create: { width: 32, height: 32, channels: 3, background: '#808080' } }).jpeg().toFile(file);
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/hardening/fixtures/exiftool-driver.ts'], {
      cwd: ROOT,
      env: { ...process.env, FILE: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      await until(() => out.includes('ready') || child.exitCode !== null, 'the driver');
      const pids = [...out.matchAll(/^pids (.*)$/gm)].map((m) => m[1]);
      expect(pids).toHaveLength(2);
      // The same processes before and after idling: the watch does not end a live app's exiftool.
      expect(pids[1]).toBe(pids[0]);
      const exiftoolPids = pids[0].split(',').map(Number);
      expect(exiftoolPids.length).toBeGreaterThan(0);
      expect(exiftoolPids.every(alive)).toBe(true);

      child.kill('SIGKILL');
      await until(() => exiftoolPids.every((p) => !alive(p)), 'the orphaned exiftool processes to end');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
