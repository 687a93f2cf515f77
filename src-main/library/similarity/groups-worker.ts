import { parentPort, workerData } from 'node:worker_threads';
import { openPeer } from '../db';
import { computeGroups } from './groups';
import { readGroupInput, writeGroups } from './stored';

// The worker thread that brings the stored similar groups up to date (background.ts starts
// it): it reads the fingerprints over a connection of its own, groups them and writes what
// changed in short transactions, so the app's main thread, which answers every IPC call,
// never waits on a million pictures being grouped.

interface Job {
  file: string;
  nativeBinding?: string;
}

/** Groups written per transaction: each holds the catalogue's write lock only briefly. */
const CHUNK = 2000;

const { file, nativeBinding } = workerData as Job;
const db = openPeer(file, nativeBinding);
try {
  const { snapshot, input } = readGroupInput(db);
  const groups = computeGroups(input);
  const written = writeGroups(db, groups, snapshot, CHUNK);
  parentPort?.postMessage({ written, groups: groups.length, changes: snapshot.changes });
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
} finally {
  db.close();
}
