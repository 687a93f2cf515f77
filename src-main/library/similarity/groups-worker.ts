import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive, openForCheckpoint, openReadOnly, type Db } from '../db';
import { computeGroups } from './groups';
import { diffGroups, packDiff, packedTransferList, readGroupInput } from './stored';

// The worker thread that groups the library's pictures (background.ts starts it): it reads
// the fingerprints and the stored groups over a read-only connection of its own, groups them
// and hands back only what changed, so the app's main thread, which answers every IPC call,
// never waits on a million pictures being grouped. The main thread writes the changes itself
// (a write by another connection would make its catalogue index start again); between its
// slices this thread copies the write-ahead log into the file when asked (the main
// connection's automatic checkpoint is off while it writes: one is a 10-20 ms step inside a
// commit on its thread), and exits after the last one.

/** What the main thread asks once it has the groups: a checkpoint now, or the last one. */
export type GroupsWorkerRequest = 'checkpoint' | 'last';

/** The answer to each request. */
export interface GroupsWorkerCheckpointed {
  checkpointed: true;
  /** The answer to 'last': the worker ends. */
  last: boolean;
  /** Why the log could not be copied (the main connection's own checkpoints do it then). */
  error?: string;
}

interface Job {
  file: string;
  nativeBinding?: string;
}

const { file, nativeBinding } = workerData as Job;
const db = openReadOnly(file, nativeBinding);
let answered = false;
try {
  const { snapshot, input } = readGroupInput(db);
  const groups = computeGroups(input);
  const diff = packDiff(diffGroups(db, groups));
  // What will be stored, member by member as the catalogue index reads it (by group id, then
  // position), handed over by transfer so the main thread need not read it back.
  const byId = groups.map((g) => ({ id: Math.min(...g.members), g })).sort((a, b) => a.id - b.id);
  const n = groups.reduce((sum, g) => sum + g.members.length, 0);
  const rows = { group: new Int32Array(n), asset: new Int32Array(n), best: new Int32Array(n), burst: new Uint8Array(n) };
  let at = 0;
  for (const { id, g } of byId) {
    for (const m of g.members) {
      rows.group[at] = id;
      rows.asset[at] = m;
      rows.best[at] = g.best;
      rows.burst[at++] = g.kind === 'burst' ? 1 : 0;
    }
  }
  parentPort?.postMessage({ snapshot, diff, rows }, [rows.group.buffer, rows.asset.buffer, rows.best.buffer, rows.burst.buffer, ...packedTransferList(diff)]);
  answered = true;
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
} finally {
  db.close();
}

if (answered && parentPort) {
  const port = parentPort;
  let writer: Db | null = null;
  let failed: string | null = null;
  const checkpoint = (): void => {
    if (failed) return;
    try {
      writer ??= openForCheckpoint(file, nativeBinding);
      checkpointPassive(writer);
    } catch (e) {
      failed = (e as Error).message;
    }
  };
  port.on('message', (m: GroupsWorkerRequest) => {
    checkpoint();
    const last = m === 'last';
    if (last) writer?.close();
    port.postMessage({ checkpointed: true, last, ...(failed ? { error: failed } : {}) } satisfies GroupsWorkerCheckpointed);
    if (last) port.close();
  });
}
