import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnly } from '../../library/db';
import { TextIndexBuilder, Tokenizer } from '../text-index';
import { CatalogueIndex } from './catalogue';
import { partsTransferList, textParts, textTransferList } from './parts';

// The worker thread that builds the catalogue index, or only its full-text part (spawn.ts
// starts it): everything is read over a read-only connection of its own, so the app's main
// thread, which answers every IPC call and thumbnail request, never waits on it; the finished
// arrays are handed over by transfer (no copy) and the main thread only takes them in
// (CatalogueIndex.adopt).

interface Job {
  file: string;
  nativeBinding?: string;
  what: 'all' | 'text';
}

const { file, nativeBinding, what } = workerData as Job;
const db = openReadOnly(file, nativeBinding);
const tok = new Tokenizer(db);
try {
  if (what === 'text') {
    const parts = textParts(new TextIndexBuilder(db).finish(tok));
    parentPort?.postMessage({ parts }, textTransferList(parts));
  } else {
    const ix = new CatalogueIndex(db);
    // One read transaction: the columns, keywords, stacks and orders are of one snapshot.
    db.exec('BEGIN');
    let after = 0;
    while (after >= 0) after = ix.loadRows(after, 100_000);
    ix.loadDuplicates();
    ix.loadKeywords();
    ix.loadStacks();
    const text = new TextIndexBuilder(db).finish(tok);
    const parts = ix.exportParts(text);
    db.exec('COMMIT');
    parentPort?.postMessage({ parts }, partsTransferList(parts));
  }
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
} finally {
  tok.close();
  db.close();
}
