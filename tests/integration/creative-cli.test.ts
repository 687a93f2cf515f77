import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../simulator/index.js';

// `tagsmith voices | speak | generate | tasks | search` as child processes against the simulator.

const BIN = resolve(__dirname, '../../bin/tagsmith.js');
const creds = { clientId: 'cli-creative', clientSecret: 'cli-creative-secret' };
let sim: Simulator;
let root: string;
let library: string;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; json: <T = Record<string, unknown>>() => T }> {
  return new Promise((done) => {
    const env = { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1', TAGSMITH_CLIENT_ID: creds.clientId, TAGSMITH_CLIENT_SECRET: creds.clientSecret };
    const child = spawn(process.execPath, [BIN, '--library', library, '--service-url', sim.url, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end('');
    child.on('close', (code) => done({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }));
  });
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 40, startedMs: 80 } });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-cli-creative-')));
  library = join(root, 'lib');
});

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

interface TaskJson { task: number; status: string; path: string; assetId: number }

describe('creative CLI', () => {
  it('voices --lang filters the cached list', async () => {
    const r = await cli(['voices', '--lang', 'spa', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ voices: { apiName: string }[] }>().voices.map((v) => v.apiName).sort()).toEqual(['Eric', 'Lucia']);
  }, 60_000);

  it('speak and generate wait for their results, which search finds as library assets; tasks lists them', async () => {
    const s = await cli(['speak', '--voice', 'Ryan', '--text', 'Hello from the command line.', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const speech = s.json<TaskJson>();
    expect(speech).toMatchObject({ status: 'done' });
    expect(speech.path.startsWith(join(library, 'Creations'))).toBe(true);
    expect(speech.assetId).toBeGreaterThan(0);

    const g = await cli(['generate', '--prompt', 'a quiet harbour', '--model', 'gpt-image-2', '--quality', 'low', '--seed', '7', '--json']);
    expect(g.code, g.stderr).toBe(0);
    expect(g.json<TaskJson>()).toMatchObject({ status: 'done' });

    const bad = await cli(['generate', '--prompt', 'x', '--model', 'zimage', '--quality', 'high', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/quality/);

    const audio = await cli(['search', '--type', 'audio', '--json']);
    expect(audio.code, audio.stderr).toBe(0);
    expect(audio.stdout).toContain(speech.path);
    const images = await cli(['search', 'harbour', '--type', 'image', '--json']);
    expect(images.stdout).toContain('Creations');

    const t = await cli(['tasks', '--json']);
    expect(t.code, t.stderr).toBe(0);
    const list = t.json<{ tasks: TaskJson[] }>().tasks;
    expect(list.map((x) => x.status)).toEqual(['done', 'done']);
  }, 120_000);
});
