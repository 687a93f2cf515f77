import { parentPort, workerData } from 'node:worker_threads';
import { checkCatalogueFile } from './backup';

// SQLite's quick_check of the catalogue file, in a worker thread over its own read-only
// connection (integrity.ts starts it): it reads every page, seconds at a million photos.

const { file, nativeBinding } = workerData as { file: string; nativeBinding?: string };
parentPort!.postMessage(checkCatalogueFile(file, nativeBinding));
