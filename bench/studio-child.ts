import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openLibrary, type LibraryCtx } from '../src-main/library/context';
import { setRating } from '../src-main/library/edits';
import { closeMetadataReader } from '../src-main/metadata/reader';
import { StudioClient, studioUrl } from '../src-main/studio/client';
import { joinPreview, joinStudio, leaveStudio, probeStudio } from '../src-main/studio/join';
import { StudioLive } from '../src-main/studio/live';
import { PROTOCOL, type ChangeIn, type LoginAnswer, type PushAnswer } from '../src-main/studio/protocol';
import { syncOnce } from '../src-main/studio/replica';
import { idleLoopDelay, loopDelayDuring } from './loop-delay';

// The replica side of the studio bench (bench/studio.ts), each mode in its own process (run
// under a private keychain when the machine has none: a member's password and session live in
// the OS keychain). Prints one JSON line with what it measured on stdout.
//   prep DIR FOLDER N                  a library holding N photos of FOLDER, nothing edited
//   seed-one DIR URL USER PASSWORD     join, rate one photo, push it (the template of the seeded log)
//   join DIR URL USER PASSWORD         the real join (probe, preview, join, then the first sync)
//   push DIR URL USER PASSWORD         join, rate every photo while offline, then one sync
//   latency DIRA DIRB URL N USERA USERB PASSWORD   two replicas syncing live; N changes on A seen on B
//   load URL USER PASSWORD CLIENTS RATE SECONDS    CLIENTS sessions each pushing RATE changes/s

const [mode, ...args] = process.argv.slice(2);

const vmHwmMB = (): number => Math.round((Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024) * 10) / 10;
const say = (msg: string): void => void process.stderr.write(`[bench:studio-child ${mode}] ${msg}\n`);

/** N photos of one folder, as a first scan leaves them (rows only: the files are on a shared disk). */
function prepLibrary(dir: string, folder: string, n: number): void {
  mkdirSync(dir, { recursive: true });
  mkdirSync(folder, { recursive: true });
  const ctx = openLibrary(dir);
  const folderId = Number(ctx.db.prepare('INSERT INTO folders (path, added_at, online) VALUES (?, ?, 1)').run(folder, Date.now()).lastInsertRowid);
  ctx.db
    .prepare(
      `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
       INSERT INTO assets (folder_id, rel_path, name, ext, kind, format, size, mtime_ms, content_hash, stack_key, added_at, indexed_at)
       SELECT ?, printf('roll%d/IMG_%07d.jpg', n / 500, n), printf('IMG_%07d.jpg', n), 'jpg', 'image', 'jpeg', 1000 + n, 0, 'h' || n,
         printf('roll%d/img_%07d', n / 500, n), 0, 0 FROM seq`,
    )
    .run(n - 1, folderId);
  ctx.db.close();
}

async function join(ctx: LibraryCtx, url: string, user: string, password: string): Promise<void> {
  const probe = await probeStudio(url);
  joinPreview(ctx);
  await joinStudio(ctx, { url: probe.url, user, password, fingerprint: probe.fingerprint });
}

const ids = (ctx: LibraryCtx): number[] => ctx.db.prepare('SELECT id FROM assets ORDER BY id').pluck().all() as number[];

async function main(): Promise<unknown> {
  if (mode === 'prep') {
    const [dir, folder, n] = args;
    const t = performance.now();
    prepLibrary(dir, folder, Number(n));
    return { seconds: (performance.now() - t) / 1000 };
  }
  if (mode === 'seed-one') {
    const [dir, url, user, password] = args;
    const ctx = openLibrary(dir);
    await join(ctx, url, user, password);
    await setRating(ctx, [ids(ctx)[0]], 4);
    const r = await syncOnce(ctx, dir);
    await leaveStudio(dir);
    ctx.db.close();
    return { pushed: r.pushed };
  }
  if (mode === 'join') {
    const [dir, url, user, password] = args;
    const ctx = openLibrary(dir);
    const opened = vmHwmMB();
    const t = performance.now();
    await join(ctx, url, user, password);
    const joined = performance.now();
    const r = await syncOnce(ctx, dir);
    const seconds = (performance.now() - t) / 1000;
    const rated = ctx.db.prepare('SELECT count(*) FROM assets WHERE rating > 0').pluck().get() as number;
    await leaveStudio(dir);
    ctx.db.close();
    return { seconds, joinSeconds: (joined - t) / 1000, pulled: r.pulled, applied: r.applied, rated, openedMB: opened, peakMB: vmHwmMB() };
  }
  if (mode === 'push') {
    const [dir, url, user, password] = args;
    const ctx = openLibrary(dir);
    await join(ctx, url, user, password);
    await syncOnce(ctx, dir);
    // Offline: every photo rated here, nothing sent.
    const all = ids(ctx);
    const t0 = performance.now();
    await setRating(ctx, all, 3);
    const editSeconds = (performance.now() - t0) / 1000;
    const idle = await idleLoopDelay();
    const t = performance.now();
    const { result, delay } = await loopDelayDuring(() => syncOnce(ctx, dir));
    const seconds = (performance.now() - t) / 1000;
    await leaveStudio(dir);
    ctx.db.close();
    return { pushed: result.pushed, seconds, editSeconds, delay, idle };
  }
  if (mode === 'latency') {
    const [dirA, dirB, url, n, userA, userB, password] = args;
    const a = openLibrary(dirA);
    const b = openLibrary(dirB);
    await join(a, url, userA, password);
    await join(b, url, userB, password);
    await syncOnce(a, dirA);
    await syncOnce(b, dirB);
    const liveA = new StudioLive(a);
    const liveB = new StudioLive(b);
    liveA.start();
    liveB.start();
    const idsA = ids(a);
    const relOf = a.db.prepare('SELECT rel_path FROM assets WHERE id = ?').pluck();
    const ratingB = b.db.prepare('SELECT rating FROM assets WHERE rel_path = ?').pluck();
    // The reference: a plain HTTPS round trip to the same server by the same client code (a new
    // TLS connection per request, as every replica request makes), GET /v1/hello.
    const pin = (await probeStudio(url)).fingerprint;
    const plain = new StudioClient(studioUrl(url), pin);
    const hello: number[] = [];
    for (let i = 0; i < Math.min(Number(n), 100); i++) {
      const t = performance.now();
      await plain.call('GET', '/v1/hello');
      hello.push(performance.now() - t);
    }
    const ms: number[] = [];
    for (let i = 0; i < Number(n); i++) {
      const id = idsA[i % idsA.length];
      const rel = relOf.get(id) as string;
      const want = (i % 5) + 1 === (ratingB.get(rel) as number) ? ((i + 1) % 5) + 1 : (i % 5) + 1;
      const t = performance.now();
      const seen = new Promise<void>((resolve) => {
        const check = (): void => {
          if (ratingB.get(rel) === want) {
            off();
            resolve();
          }
        };
        const off = b.events.on('libraryChanged', check);
      });
      await setRating(a, [id], want);
      await seen;
      ms.push(performance.now() - t);
    }
    await liveA.stop();
    await liveB.stop();
    await leaveStudio(dirA);
    await leaveStudio(dirB);
    a.db.close();
    b.db.close();
    return { ms, hello };
  }
  if (mode === 'load') {
    const [url, user, password, clients, rate, seconds] = args;
    const pin = (await probeStudio(url)).fingerprint;
    const base = studioUrl(url);
    // Each client a device with its own session, signed in through the real /v1/login.
    const sessions: { client: StudioClient; seq: number }[] = [];
    for (let i = 0; i < Number(clients); i++) {
      const c = new StudioClient(base, pin);
      const device = { id: randomBytes(8).toString('hex'), name: `bench load ${i}` };
      const answer = await c.call<LoginAnswer>('POST', '/v1/login', { user, password, device });
      c.setToken(answer.token);
      sessions.push({ client: c, seq: 0 });
    }
    const folder = `/bench-load/${randomBytes(4).toString('hex')}`;
    const latencies: number[] = [];
    let errors = 0;
    const every = 1000 / Number(rate);
    const until = performance.now() + Number(seconds) * 1000;
    // Open loop: each client sends on its own schedule whether or not its last push has been
    // answered (a slow server is not hidden by clients that wait for it).
    await Promise.all(
      sessions.map(async (s, k) => {
        const pending: Promise<void>[] = [];
        let next = performance.now() + (every * k) / sessions.length;
        while (next < until) {
          await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
          next += every;
          const seq = ++s.seq;
          const change: ChangeIn = {
            deviceSeq: seq,
            hlc: `${new Date().toISOString()}-0000-${k}`,
            kind: 'set',
            body: { asset: { folder, path: `c${k}/IMG_${seq}.jpg`, hash: null }, field: 'rating', value: (seq % 5) + 1, undo: false },
          };
          const t = performance.now();
          pending.push(
            s.client.call<PushAnswer>('POST', '/v1/changes', { changes: [change] }).then(
              () => void latencies.push(performance.now() - t),
              () => void errors++,
            ),
          );
        }
        await Promise.all(pending);
      }),
    );
    for (const s of sessions) await s.client.call('POST', '/v1/logout').catch(() => {});
    return { latencies, errors, protocol: PROTOCOL };
  }
  throw new Error(`unknown mode ${mode}`);
}

const result = await main().finally(() => closeMetadataReader());
say('done');
process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
