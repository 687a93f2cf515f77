// kill -9 while a creative task waits at the service, while it is being cancelled and while it
// is fetched again (issue 32): after a restart no task is created twice and a paid result is
// not lost. The simulator runs in this process, so its log is the truth about what was sent;
// the catalogue, read with a fresh connection, is the truth about what was committed.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src-main/library/context';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { runAndKill, startDriver, until, type Driver } from './helpers';

const creds = { clientId: 'crash-creative', clientSecret: 'crash-creative-secret' };
const KILLS = 4;
const CREATE = '/v1/image_generate';
const STATUS = '/v1/status';
let sim: Simulator;
let base: string;
let dataDir: string;
let env: Record<string, string>;
let n = 0;

const creates = (): number => sim.log.filter((e) => e.path === CREATE && e.method === 'POST').length;
const lineOf = (lines: string[], re: RegExp): RegExpExecArray | null => lines.map((l) => re.exec(l)).find(Boolean) ?? null;

interface TaskRow { status: string; result_path: string | null; result_asset_id: number | null; remote_task_id: string | null }

/** What the catalogue holds about a task (committed only: a fresh connection). */
function rowOf(id: number): TaskRow {
  const db = new Database(join(dataDir, 'library.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT t.status, t.result_path, t.result_asset_id, p.remote_task_id FROM creative_tasks t JOIN creative_task_parts p ON p.task_id = t.id WHERE t.id = ? AND p.part = 0').get(id) as TaskRow;
  } finally {
    db.close();
  }
}

/** The task's files in the creations folder: one, however the kills fell (never a second copy of a paid result). */
function copiesOf(id: number): string[] {
  const dir = join(dataDir, 'Creations', 'Images');
  return existsSync(dir) ? readdirSync(dir).filter((f) => new RegExp(`-${id}(-\\d+)?\\.\\w+$`).test(f)) : [];
}

/** A driver that starts one generate task; its id once the task row exists. */
async function startTask(): Promise<{ d: Driver; id: number }> {
  const d = startDriver('creative-driver.ts', { ...env, MODE: 'start' });
  const m = await until(() => lineOf(d.lines, /^task (\d+)$/) ?? (d.child.exitCode !== null ? ['', 'exited'] : null), 'the task started');
  if (m[1] === 'exited') throw new Error(`the start driver exited: ${d.stderr()}`);
  return { d, id: Number(m[1]) };
}

/** Restart (only run the queue) until the task ends; its final status, or 'exited' when the app went idle with the task not ended. */
async function runUntilFinal(id: number): Promise<string> {
  const d = startDriver('creative-driver.ts', { ...env, MODE: 'run' });
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
});

// A library of its own per case: no task of another case is swept, listed or printed.
beforeEach(() => {
  dataDir = join(base, `data-${n++}`);
  openLibrary(dataDir).db.close();
  env = { DATA_DIR: dataDir, SIM_URL: sim.url, CLIENT_ID: creds.clientId, CLIENT_SECRET: creds.clientSecret };
  sim.clearFaults();
});

afterAll(async () => {
  await sim.close();
  await rm(base, { recursive: true, force: true });
});

describe('kill -9 during creative tasks', () => {
  it('while the create is on its way: after the restart the task says its answer was lost (unknown), never sent again', async () => {
    for (let k = 0; k < 2; k++) {
      sim.inject({ kind: 'hold', path: CREATE, count: 1 });
      const before = creates();
      const { d, id } = await startTask();
      await sim.held.until(1, CREATE);
      await d.kill();
      // The service carries it out after all (and bills it): the answer went nowhere.
      sim.held.release(CREATE);
      await until(() => sim.log.filter((e) => e.path === CREATE).at(-1)!.status !== 0, 'the service to answer the create');
      // Before the fix the restarted app settled the job as 'unknown' without telling the
      // creative task, which went on 'waiting' for nothing (the app had nothing left to do).
      expect(await runUntilFinal(id), `round ${k}`).toBe('unknown');
      expect(rowOf(id).status, `round ${k}`).toBe('unknown');
      expect(creates() - before, `round ${k}: creates`).toBe(1);
    }
  });

  it('while a task waits at the service: the restart follows the same task and its paid result lands in the library', async () => {
    for (let k = 0; k < 2; k++) {
      // Its first status call held: the task id is committed and the task waits at the service.
      sim.inject({ kind: 'hold', path: STATUS, count: 1 });
      const before = creates();
      const { d, id } = await startTask();
      await sim.held.until(1, STATUS);
      await d.kill();
      sim.held.release(STATUS);
      expect(rowOf(id).remote_task_id, `round ${k}`).toBeTruthy();
      expect(await runUntilFinal(id), `round ${k}`).toBe('done');
      const row = rowOf(id);
      expect(existsSync(row.result_path!), `round ${k}: result file`).toBe(true);
      expect(row.result_asset_id, `round ${k}: in the library`).not.toBeNull();
      expect(copiesOf(id), `round ${k}: copies`).toHaveLength(1);
      expect(creates() - before, `round ${k}: creates`).toBe(1);
    }
  });

  it(`while a task waits, killed at a random moment (${KILLS} kills): created at most once, a paid result lands`, async () => {
    for (let k = 0; k < KILLS; k++) {
      const before = creates();
      const d = await runAndKill('creative-driver.ts', { ...env, MODE: 'start' }, 700, /^task \d+$/);
      const id = Number(lineOf(d.lines, /^task (\d+)$/)![1]);
      const status = await runUntilFinal(id);
      const sent = creates() - before;
      expect(sent, `kill ${k}: creates`).toBeLessThanOrEqual(1);
      // The task id was committed: paid, followed and landed. Without one, its answer was lost
      // in the kill (unknown), or nothing was sent (then it ran after the restart).
      if (rowOf(id).remote_task_id) {
        expect(status, `kill ${k}`).toBe('done');
        expect(existsSync(rowOf(id).result_path!), `kill ${k}: result file`).toBe(true);
        expect(copiesOf(id), `kill ${k}: copies`).toHaveLength(1);
      } else expect(status, `kill ${k}`).toBe('unknown');
      expect(creates() - before, `kill ${k}: no create after the restart`).toBe(sent);
    }
  });

  it('while a result is being finished (moved into Creations, not yet in the library): the restart finishes it, one copy', async () => {
    // A task followed by its job: the restart goes on from the file in place.
    const before = creates();
    const d = startDriver('creative-driver.ts', { ...env, MODE: 'start', DIE_ON_NEW_FOLDER: '1' });
    await d.exited;
    const id = Number(lineOf(d.lines, /^task (\d+)$/)![1]);
    expect(rowOf(id).status).toBe('downloading');
    expect(copiesOf(id)).toHaveLength(1);
    // Before the fix the restart found the downloaded file gone and said 'download_failed'.
    expect(await runUntilFinal(id)).toBe('done');
    expect(rowOf(id).result_asset_id).not.toBeNull();
    expect(copiesOf(id)).toHaveLength(1);
    expect(creates() - before).toBe(1);
  });

  it('while a result fetched again is being finished: Fetch again finishes the file in place, never downloads it twice', async () => {
    // Its answer was unreadable: followed by Fetch again only; cut short as above.
    const before = creates();
    sim.inject({ kind: 'garbled', path: CREATE, count: 1, message: '{"data":{"id":"{task_id}"}}' });
    const { d: s, id: id2 } = await startTask();
    await until(() => rowOf(id2).status === 'unknown', 'the unreadable answer');
    await s.kill();
    const remote = rowOf(id2).remote_task_id!;
    await until(() => sim.tasks().find((t) => t.task_id === remote)?.status === 'SUCCESS', 'the task to finish at the service');
    const f = startDriver('creative-driver.ts', { ...env, MODE: 'fetch', TASK: String(id2), DIE_ON_NEW_FOLDER: '1' });
    await f.exited;
    expect(f.lines).not.toContain('fetch asked');
    expect(copiesOf(id2)).toHaveLength(1);
    const status = await runUntilFinal(id2);
    if (status !== 'done') {
      expect(status).toBe('unknown');
      const g = startDriver('creative-driver.ts', { ...env, MODE: 'fetch', TASK: String(id2) });
      await until(() => g.lines.includes('fetch asked') || g.child.exitCode !== null, 'the fetch');
      await g.kill();
      expect(await runUntilFinal(id2)).toBe('done');
    }
    expect(rowOf(id2).result_asset_id).not.toBeNull();
    expect(copiesOf(id2)).toHaveLength(1);
    // Downloaded once: the file in place was finished, not fetched a second time.
    expect(sim.log.filter((e) => e.path.startsWith(`/files/${remote}`))).toHaveLength(1);
    expect(creates() - before).toBe(1);
  });

  it('while the cancel of a followed task is on its way: the restart sends the cancel again before anything else', async () => {
    sim.inject({ kind: 'slowTask', path: CREATE, ms: 600_000, count: 1 });
    const before = creates();
    const { d, id } = await startTask();
    const remote = await until(() => rowOf(id).remote_task_id, 'the task at the service');
    await d.kill();
    // The restarted app follows the task; the user cancels; the cancel is held on its way.
    sim.inject({ kind: 'hold', path: `/v1/tasks/${remote}`, count: 1 });
    const c = startDriver('creative-driver.ts', { ...env, MODE: 'cancel', TASK: String(id) });
    await sim.held.until(1, `/v1/tasks/${remote}`);
    await c.kill();
    const seen = sim.log.length;
    const status = await runUntilFinal(id);
    sim.held.release();
    // Before the fix the cancel lived only in memory: the restart followed the task on (a
    // status call first) and never cancelled it.
    expect(sim.log.slice(seen).filter((e) => e.path === STATUS || e.path.startsWith('/v1/tasks/')).map((e) => `${e.method} ${e.path}`)[0]).toBe(`DELETE /v1/tasks/${remote}`);
    expect(status).toBe('cancelled');
    expect(sim.tasks().find((t) => t.task_id === remote)?.status).toBe('REVOKED');
    expect(creates() - before).toBe(1);
  });

  it(`while a task is being cancelled (${KILLS} kills): the service revokes it after the restart, nothing created again`, async () => {
    for (let k = 0; k < KILLS; k++) {
      sim.inject({ kind: 'slowTask', path: CREATE, ms: 600_000, count: 1 });
      const before = creates();
      const { d, id } = await startTask();
      // The task id committed (not only printed): the task is at the service.
      const remote = await until(() => rowOf(id).remote_task_id, 'the task at the service');
      await d.kill();
      await runAndKill('creative-driver.ts', { ...env, MODE: 'cancel', TASK: String(id) }, 200, /^cancelling$/);
      const status = await runUntilFinal(id);
      expect(status, `kill ${k}`).toBe('cancelled');
      expect(sim.tasks().find((t) => t.task_id === remote)?.status, `kill ${k}`).toBe('REVOKED');
      expect(creates() - before, `kill ${k}: creates`).toBe(1);
    }
  });

  it(`while a task is fetched again (${KILLS} kills): the result lands, nothing created again`, async () => {
    for (let k = 0; k < KILLS; k++) {
      // Answered, unreadable (its task id still in the answer): paid, followed only by Fetch again.
      sim.inject({ kind: 'garbled', path: CREATE, count: 1, message: '{"data":{"id":"{task_id}"}}' });
      const before = creates();
      const { d, id } = await startTask();
      await until(() => rowOf(id).status === 'unknown', 'the unreadable answer');
      await d.kill();
      const remote = rowOf(id).remote_task_id;
      expect(remote, `kill ${k}`).toBeTruthy();
      await until(() => sim.tasks().find((t) => t.task_id === remote)?.status === 'SUCCESS', 'the task to finish at the service');
      if (k % 2 === 0) {
        // Killed while the fetch asks for the task's status.
        sim.inject({ kind: 'hold', path: STATUS, count: 1 });
        const f = startDriver('creative-driver.ts', { ...env, MODE: 'fetch', TASK: String(id) });
        await sim.held.until(1, STATUS);
        await f.kill();
        sim.held.release(STATUS);
      } else {
        // Killed at a random moment of the fetch (the download, the move into the library).
        await runAndKill('creative-driver.ts', { ...env, MODE: 'fetch', TASK: String(id) }, 300, /^fetching$/);
      }
      let status = await runUntilFinal(id);
      if (status !== 'done') {
        // The fetch was cut short: the task is still one to fetch (no new charge), never a failure.
        expect(['unknown', 'download_failed'], `kill ${k}`).toContain(status);
        const f = startDriver('creative-driver.ts', { ...env, MODE: 'fetch', TASK: String(id) });
        await until(() => f.lines.includes('fetch asked') || f.child.exitCode !== null, 'the fetch');
        await f.kill();
        status = await runUntilFinal(id);
      }
      expect(status, `kill ${k}`).toBe('done');
      const row = rowOf(id);
      expect(existsSync(row.result_path!), `kill ${k}: result file`).toBe(true);
      expect(row.result_asset_id, `kill ${k}: in the library`).not.toBeNull();
      expect(copiesOf(id), `kill ${k}: copies`).toHaveLength(1);
      expect(creates() - before, `kill ${k}: creates`).toBe(1);
    }
  });
});
