import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnly } from '../db';
import { TextIndexBuilder, Tokenizer } from '../text-index';
import { CatalogueIndex, partsTransferList } from './catalogue';

// The worker thread that builds the catalogue index (spawn.ts starts it): everything is read
// over a read-only connection of its own, so the app's main thread, which answers every IPC
// call and thumbnail request, never waits on it; the finished arrays are handed over by
// transfer (no copy) and the main thread only takes them in (CatalogueIndex.adopt).

interface Job {
  file: string;
  nativeBinding?: string;
}

const { file, nativeBinding } = workerData as Job;
const db = openReadOnly(file, nativeBinding);
try {
  const ix = new CatalogueIndex(db);
  // One read transaction: the columns, keywords, stacks and orders are of one snapshot.
  db.exec('BEGIN');
  let after = 0;
  while (after >= 0) after = ix.loadRows(after, 100_000);
  ix.loadDuplicates();
  ix.loadKeywords();
  ix.loadStacks();
  const tok = new Tokenizer(db);
  const text = new TextIndexBuilder(db).finish(tok);
  const parts = ix.exportParts(text);
  db.exec('COMMIT');
  tok.close();
  parentPort?.postMessage({ parts }, partsTransferList(parts));
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
} finally {
  db.close();
}
