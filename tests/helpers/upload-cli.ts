import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import { BIN } from './cli';

// The upload tests' shared parts: `tagsmith` as a child process (its pid at hand, to stop it mid-upload), a source of real JPEGs, and a
// library of its own per test (copies of them, indexed, keyworded and captioned).

export const USER = 'contributor';
export const PASSWORD = 's3cret-pass';
export const creds = { TAGSMITH_UPLOAD_USER: USER, TAGSMITH_UPLOAD_PASSWORD: PASSWORD };

export interface Run { code: number | null; stdout: string; stderr: string; json: <T = unknown>() => T }

/** The CLI, asynchronously (an SFTP server in this process must keep answering meanwhile). */
export function cli(library: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> & { pid: () => number | undefined } {
  const child = spawn(process.execPath, [BIN, '--library', library, ...args], {
    env: { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1', TAGSMITH_UPLOAD_USER: '', TAGSMITH_UPLOAD_PASSWORD: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const p = new Promise<Run>((res) => child.on('close', (code) => res({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }))) as Promise<Run> & { pid: () => number | undefined };
  p.pid = () => child.pid;
  return p;
}

/**
 * Source photos: 2500×1700 (4.25 MP) passes Adobe Stock's 4 MP; the noise makes files of a few
 * MB, so an upload takes long enough on a throttled server to be interrupted. small.jpg fails the check.
 */
export async function makeSource(): Promise<string> {
  const source = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-upload-src-')));
  for (const [i, f] of ['harbour.jpg', 'pier.jpg', 'nets.jpg'].entries()) {
    await sharp({ create: { width: 2500, height: 1700, channels: 3, background: { r: 20 + i * 40, g: 90, b: 160 }, noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
      .jpeg({ quality: 92 })
      .toFile(join(source, f));
  }
  await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 160, g: 90, b: 20 } } }).jpeg().toFile(join(source, 'small.jpg'));
  return source;
}

/** A library of its own for one test: copies of the source photos, indexed, keyworded and captioned. */
export async function makeLibrary(source: string, name: string, files: string[]): Promise<{ root: string; lib: string; photo: (f: string) => string }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `tagsmith-upload-${name}-`)));
  const photos = join(root, 'photos');
  mkdirSync(photos);
  for (const f of files) copyFileSync(join(source, f), join(photos, f));
  const lib = join(root, 'lib');
  const photo = (f: string) => join(photos, f);
  const ix = await cli(lib, ['index', photos]);
  expect(ix.code, ix.stderr).toBe(0);
  const tag = await cli(lib, ['tag', ...files.map(photo), '--add', 'boat,harbour,dawn,sea,water,calm,morning']);
  expect(tag.code, tag.stderr).toBe(0);
  const cap = await cli(lib, ['caption', ...files.map(photo), '--set', 'Fishing boats in a quiet harbour at dawn']);
  expect(cap.code, cap.stderr).toBe(0);
  return { root, lib, photo };
}

export const same = (a: string, b: string): boolean => readFileSync(a).equals(readFileSync(b));
