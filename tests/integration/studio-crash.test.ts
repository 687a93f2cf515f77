import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioClient, StudioError } from '../../src-main/studio/client';
import type { ChangeIn, LoginAnswer, PullAnswer, PushAnswer } from '../../src-main/studio/protocol';
import { tagsmith } from '../helpers/cli';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { serveStudio, studioTestsMissing } from '../helpers/studio';

// The studio server killed with SIGKILL while replicas push: after a restart on the same
// database every change that was acknowledged is there, a replica that re-sends what it was not
// sure of gets each change applied exactly once, and the numbers stay contiguous.

const missing = await studioTestsMissing('the studio crash tests', { keychain: false });

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe.skipIf(missing !== null)('the studio server killed mid-push', () => {
  let pgc: Postgres;
  let database: string;

  beforeAll(async () => {
    pgc = startPostgres();
    pgc.createDatabase('studio');
    database = pgc.url('studio');
    for (const name of ['ana', 'ben']) {
      const r = await tagsmith(null, ['serve', 'user', 'add', name, '--role', 'editor', '--database', database, '--password-stdin'], { input: `${name}-secret-1\n` });
      expect(r.code).toBe(0);
    }
  });

  afterAll(() => pgc?.stop());

  it('loses no acknowledged change and applies none twice', async () => {
    let server = await serveStudio(database);
    const port = new URL(server.served.url).port;
    const sign = async (user: string): Promise<StudioClient> => {
      const c = new StudioClient(new URL(server.served.url), server.served.fingerprint);
      c.setToken((await c.call<LoginAnswer>('POST', '/v1/login', { user, password: `${user}-secret-1`, device: { id: `device-${user}-0001`, name: user } })).token);
      return c;
    };
    const clients = { ana: await sign('ana'), ben: await sign('ben') };
    const TOTAL = 400;
    const BATCH = 25;
    const acknowledged = { ana: 0, ben: 0 };
    const change = (user: string, n: number): ChangeIn => ({ deviceSeq: n, hlc: `${String(n).padStart(8, '0')}-${user}`, kind: 'asset.set', body: { asset: `vol:a/${user}-${n}.jpg`, field: 'rating', value: n % 6 } });

    // Each replica sends its changes in batches from the first one not acknowledged: a batch
    // cut by the kill is sent again whole (some of it may have been committed).
    const replica = async (user: 'ana' | 'ben', stopAt: number): Promise<void> => {
      while (acknowledged[user] < stopAt) {
        const from = acknowledged[user] + 1;
        const batch = Array.from({ length: Math.min(BATCH, stopAt - acknowledged[user]) }, (_, i) => change(user, from + i));
        try {
          await clients[user].call<PushAnswer>('POST', '/v1/changes', { changes: batch });
          acknowledged[user] = batch.at(-1)!.deviceSeq;
        } catch (err) {
          if (!(err instanceof StudioError)) throw err;
          return; // the server is gone: what was acknowledged is what counts
        }
      }
    };

    // Kill the server while both replicas are mid-stream: once ana has 200 acknowledged.
    let anaDone = false;
    const running = [replica('ana', TOTAL).finally(() => (anaDone = true)), replica('ben', TOTAL)];
    while (acknowledged.ana < 200 && !anaDone) await new Promise((r) => setImmediate(r));
    expect(anaDone).toBe(false);
    await killed(server.child);
    await Promise.all(running);
    const before = { ...acknowledged };

    server = await serveStudio(database, { listen: `127.0.0.1:${port}` });
    const page = await (await sign('ana')).call<PullAnswer>('GET', '/v1/changes?after=0&limit=5000');
    for (const user of ['ana', 'ben'] as const) {
      const have = new Set(page.changes.filter((c) => c.deviceId === `device-${user}-0001`).map((c) => c.deviceSeq));
      for (let n = 1; n <= before[user]; n++) expect(have.has(n)).toBe(true);
    }

    // Both replicas come back and send the rest, from their first unacknowledged change.
    clients.ana = await sign('ana');
    clients.ben = await sign('ben');
    await Promise.all([replica('ana', TOTAL), replica('ben', TOTAL)]);
    const all = (await clients.ana.call<PullAnswer>('GET', '/v1/changes?after=0&limit=5000')).changes;
    expect(all.map((c) => c.seq)).toEqual(all.map((_, i) => i + 1));
    for (const user of ['ana', 'ben'] as const) {
      const seqs = all.filter((c) => c.deviceId === `device-${user}-0001`).map((c) => c.deviceSeq);
      expect(seqs).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
    }
    await killed(server.child);
  });
});
