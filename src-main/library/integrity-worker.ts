import { parentPort, workerData } from 'node:worker_threads';
import { checkWithBackup } from './backup';

// SQLite's quick_check of the catalogue file, in a worker thread over its own read-only
// connection (integrity.ts starts it): it reads every page, seconds at a million photos. At
// start-up a damaged catalogue's backups are checked here too, for the one to offer.

const { file, nativeBinding, backupsOf } = workerData as { file: string; nativeBinding?: string; backupsOf?: string };
parentPort!.postMessage(checkWithBackup(file, { nativeBinding, backupsOf }));
