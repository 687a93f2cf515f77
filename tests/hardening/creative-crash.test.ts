// kill -9 while a creative task is being cancelled (issue 32): after a restart the cancel
// reaches the service and no task is created twice. The simulator runs in this process, so
// its log is the truth about what was sent.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src-main/library/context';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { runAndKill, startDriver, until } from './helpers';

const creds = { clientId: 'crash-creative', clientSecret: 'crash-creative-secret' };
const KILLS = 4;
let sim: Simulator;
let base: string;
let dataDir: string;
let env: Record<string, string>;

const creates = (): number => sim.log.filter((e) => e.path === '/v1/image_generate' && e.method === 'POST').length;
const lineOf = (lines: string[], re: RegExp): RegExpExecArray | null => lines.map((l) => re.exec(l)).find(Boolean) ?? null;

async function runUntilFinal(id: number, extra: Record<string, string> = {}): Promise<string> {
  const d = startDriver('creative-driver.ts', { ...env, MODE: 'run', ...extra });
  try {
    const m = await until(() => lineOf(d.lines, new RegExp(`^final ${id} (\\w+)$`)) ?? (d.child.exitCode !== null ? ['', 'exited'] : null), `task ${id} to end`);
    return m[1];
  } finally {
    await d.kill();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, accounts: [creds], taskClock: { pendingMs: 100, startedMs: 300 } });
  base = mkdtempSync(join(tmpdir(), 'tagsmith-creative-crash-'));
  dataDir = join(base, 'data');
  openLibrary(dataDir).db.close();
  env = { DATA_DIR: dataDir, SIM_URL: sim.url, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret };
});

afterAll(async () => {
  await sim.close();
  await rm(base, { recursive: true, force: true });
});

describe('kill -9 during creative tasks', () => {
  it(`while a task is being cancelled (${KILLS} kills): the service revokes it after the restart, nothing created again`, async () => {
    for (let k = 0; k < KILLS; k++) {
      sim.inject({ kind: 'slowTask', path: '/v1/image_generate', ms: 600_000, count: 1 });
      const before = creates();
      const start = startDriver('creative-driver.ts', { ...env, MODE: 'start' });
      const m = await until(() => lineOf(start.lines, /^remote (\d+) (\S+)$/), 'the task at the service');
      await start.kill();
      const [id, remote] = [Number(m[1]), m[2]];
      await runAndKill('creative-driver.ts', { ...env, MODE: 'cancel', TASK: String(id) }, 200, /^cancelling$/);
      const status = await runUntilFinal(id);
      expect(status, `kill ${k}`).toBe('cancelled');
      expect(sim.tasks().find((t) => t.task_id === remote)?.status, `kill ${k}`).toBe('REVOKED');
      expect(creates() - before, `kill ${k}: creates`).toBe(1);
    }
  });
});
