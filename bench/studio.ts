import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { osKeychain } from '../src-main/credentials';
import { postgresMissing, startPostgres, type Postgres } from '../tests/helpers/postgres';
import { serveStudio } from '../tests/helpers/studio';
import { check, log, median, now, p95, pick, round, SMALL, type AreaResult, type Figure } from './common';
import type { LoopDelay } from './loop-delay';

// The studio library (issue 34): `tagsmith serve` (the real server, its own process) on a
// throw-away PostgreSQL cluster (tests/helpers/postgres.ts: initdb in a temp dir, Unix socket
// only, fsync off), and replicas running the real sync code (bench/studio-child.ts, each its own
// process, with a private keychain when the machine has none).

const LATENCY_CHANGES = pick(200, 30);
const PUSH_CHANGES = pick(100_000, 2_000);
const JOIN_PHOTOS = pick(1_000_000, 10_000);
const LOAD_REPLICAS = pick(20, 3);
const LOAD_RATE = 10;
const LOAD_SECONDS = pick(20, 5);
const LOAD_PROCESSES = pick(2, 1);

const BIN = fileURLToPath(new URL('../bin/tagsmith.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./studio-child.ts', import.meta.url));
const KEYRING = fileURLToPath(new URL('../scripts/with-keyring.sh', import.meta.url));
const PASSWORD = 'bench-secret-1';
const env = { ...process.env, TAGSMITH_HOME: '', TAGSMITH_QUIET: '1' };

/** Whether this process can use the OS keychain (else each child runs under a private one). */
async function keychainWorks(): Promise<boolean> {
  const probe = osKeychain(`tagsmith-bench-${randomBytes(4).toString('hex')}`, 'probe');
  try {
    await probe.set('x');
    await probe.delete();
    return true;
  } catch {
    return false;
  }
}

function hasTool(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function child<T>(wrap: boolean, args: string[]): Promise<T> {
  const argv = [process.execPath, '--import', 'tsx', CHILD, ...args];
  const [cmd, rest] = wrap ? [KEYRING, argv] : [argv[0], argv.slice(1)];
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, rest, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('error', reject);
    c.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`studio child ${args[0]} exited with ${code}: ${err.trim().split('\n').slice(-5).join(' | ')}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as T);
    });
  });
}

function addUser(url: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, 'serve', 'user', 'add', name, '--role', 'editor', '--database', url, '--password-stdin'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('error', reject);
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`serve user add ${name} exited with ${code}: ${err.trim()}`))));
    c.stdin.end(`${PASSWORD}\n`);
  });
}

function missingRows(why: string): AreaResult {
  const rows = ['a change on one replica visible on another (p95)', '100,000 changes pushed after a long offline period', 'joining a 1,000,000-photo studio catalogue', 'the server under 20 replicas each making 10 changes per second (p95)'];
  return {
    area: 'studio',
    figures: rows.map((name) => ({ area: 'studio', name: `${name}: not measured (${why})`, value: NaN, unit: '', reference: null, target: null, status: 'INFO' as const })),
    notes: [`The studio area needs PostgreSQL and was not measured here: ${why}.`],
    seconds: 0,
  };
}

export async function benchStudio(workDir: string): Promise<AreaResult> {
  const t0 = Date.now();
  const say = (msg: string): void => log('studio', `${round((Date.now() - t0) / 1000, 0)} s: ${msg}`);
  const missing = postgresMissing() ?? (!(await keychainWorks()) && !(hasTool('dbus-run-session') && hasTool('gnome-keyring-daemon')) ? 'no OS keychain and no gnome-keyring-daemon to run a private one' : null);
  if (missing) {
    log('studio', `skipped: ${missing}`);
    return missingRows(missing);
  }
  const wrap = !(await keychainWorks());
  const dir = join(workDir, 'studio');
  mkdirSync(dir, { recursive: true });
  const shared = (name: string): string => {
    mkdirSync(join(dir, name), { recursive: true });
    return realpathSync(join(dir, name));
  };
  const servers: ChildProcess[] = [];
  let pgc: Postgres | null = null;
  try {
    pgc = startPostgres();
    pgc.createDatabase('studio');
    pgc.createDatabase('catalogue');
    say('PostgreSQL started; adding users');
    await Promise.all([addUser(pgc.url('studio'), 'ana'), addUser(pgc.url('studio'), 'ben'), addUser(pgc.url('catalogue'), 'cat')]);
    const main = await serveStudio(pgc.url('studio'));
    servers.push(main.child);
    const url = main.served.url;

    // 1. A change on one replica seen on another: two live replicas over the same photos.
    const photos1 = shared('photos-live');
    await child(false, ['prep', join(dir, 'live-a'), photos1, '500']);
    await child(false, ['prep', join(dir, 'live-b'), photos1, '500']);
    say(`latency: ${LATENCY_CHANGES} changes`);
    const lat = await child<{ ms: number[]; hello: number[] }>(wrap, ['latency', join(dir, 'live-a'), join(dir, 'live-b'), url, String(LATENCY_CHANGES), 'ana', 'ben', PASSWORD]);

    // 4. Load: lightweight clients speaking the real protocol, pushing on a fixed schedule.
    say(`load: ${LOAD_REPLICAS} clients x ${LOAD_RATE}/s for ${LOAD_SECONDS} s in ${LOAD_PROCESSES} process(es)`);
    const per = Math.ceil(LOAD_REPLICAS / LOAD_PROCESSES);
    const loads = await Promise.all(
      Array.from({ length: LOAD_PROCESSES }, (_, i) => child<{ latencies: number[]; errors: number }>(false, ['load', url, 'ana', PASSWORD, String(Math.min(per, LOAD_REPLICAS - i * per)), String(LOAD_RATE), String(LOAD_SECONDS)])),
    );
    const loadMs = loads.flatMap((l) => l.latencies);
    const loadErrors = loads.reduce((n, l) => n + l.errors, 0);

    // 2. A long offline period: every photo rated while offline, then one sync.
    const photos2 = shared('photos-offline');
    await child(false, ['prep', join(dir, 'offline'), photos2, String(PUSH_CHANGES)]);
    say(`push: ${PUSH_CHANGES} changes`);
    const push = await child<{ pushed: number; seconds: number; editSeconds: number; delay: LoopDelay; idle: LoopDelay }>(wrap, ['push', join(dir, 'offline'), url, 'ana', PASSWORD]);
    // Its reference: the same number of change rows written by PostgreSQL alone (one INSERT ... SELECT).
    const db = new pg.Client({ connectionString: pgc.url('studio') });
    await db.connect();
    const tIns = now();
    await db.query(`CREATE TEMP TABLE bare AS SELECT * FROM changes WITH NO DATA`);
    await db.query(`INSERT INTO bare (seq, device_id, device_seq, hlc, user_id, kind, body)
      SELECT n, c.device_id, n, c.hlc, c.user_id, c.kind, c.body FROM (SELECT * FROM changes ORDER BY seq DESC LIMIT 1) c, generate_series(1, $1) n`, [PUSH_CHANGES]);
    const insertMs = now() - tIns;
    await db.end();

    // 3. Joining a big studio catalogue: its own studio, whose log is one real change made by a
    // member and copied by PostgreSQL for every other photo of the same shared folder.
    const cat = await serveStudio(pgc.url('catalogue'));
    servers.push(cat.child);
    const photos3 = shared('photos-catalogue');
    await child(false, ['prep', join(dir, 'seeder'), photos3, '1']);
    await child(wrap, ['seed-one', join(dir, 'seeder'), cat.served.url, 'cat', PASSWORD]);
    const tSeed = now();
    const cdb = new pg.Client({ connectionString: pgc.url('catalogue') });
    await cdb.connect();
    await cdb.query(
      `INSERT INTO changes (seq, device_id, device_seq, hlc, user_id, kind, body)
       SELECT t.seq + n, t.device_id, t.device_seq + n, t.hlc, t.user_id, t.kind,
         jsonb_set(jsonb_set(t.body, '{asset,path}', to_jsonb(format('roll%s/IMG_%s.jpg', n / 500, lpad(n::text, 7, '0')))), '{asset,hash}', to_jsonb('h' || n))
       FROM (SELECT * FROM changes ORDER BY seq DESC LIMIT 1) t, generate_series(1, $1::int - 1) n`,
      [JOIN_PHOTOS],
    );
    await cdb.query('ANALYZE changes');
    await cdb.end();
    say(`catalogue of ${JOIN_PHOTOS} photos seeded in ${round((now() - tSeed) / 1000, 1)} s; preparing the joining library`);
    const prep = await child<{ seconds: number }>(false, ['prep', join(dir, 'joiner'), photos3, String(JOIN_PHOTOS)]);
    say(`joining (library prepared in ${round(prep.seconds, 1)} s)`);
    const joined = await child<{ seconds: number; joinSeconds: number; pulled: number; applied: Record<string, number>; rated: number; openedMB: number; peakMB: number }>(wrap, [
      'join', join(dir, 'joiner'), cat.served.url, 'cat', PASSWORD,
    ]);

    const latP95 = p95(lat.ms);
    const helloP95 = p95(lat.hello);
    const loadP95 = p95(loadMs);
    const expectedLoad = LOAD_REPLICAS * LOAD_RATE * LOAD_SECONDS;
    const rate = push.pushed / push.seconds;
    const insertRate = PUSH_CHANGES / (insertMs / 1000);
    const figures: Figure[] = [
      {
        area: 'studio', name: `a change on one replica visible on another, p95 of ${lat.ms.length} ratings (median ${round(median(lat.ms), 1)} ms, max ${round(Math.max(...lat.ms), 1)} ms)`,
        value: round(latP95, 1), unit: 'ms p95', reference: { name: 'plain HTTPS round trip to the same server (GET /v1/hello, new TLS connection), p95', value: round(helloP95, 1), unit: 'ms' },
        ratio: round(latP95 / helloP95, 1), ratioNote: 'change seen/round trip', target: '<= 1000 ms', status: check(latP95 <= 1000 && lat.ms.length === LATENCY_CHANGES),
      },
      {
        area: 'studio', name: `${PUSH_CHANGES} changes pushed after a long offline period: throughput (one sync, ${round(push.seconds, 1)} s; ${push.pushed} applied by the server)`,
        value: round(rate, 0), unit: 'changes/s', reference: { name: 'PostgreSQL alone writing as many change rows (one INSERT ... SELECT)', value: round(insertRate, 0), unit: 'changes/s' },
        ratio: round(rate / insertRate, 3), ratioNote: 'push/database alone', target: null, status: push.pushed === PUSH_CHANGES ? 'INFO' : 'FAIL',
        note: push.pushed === PUSH_CHANGES ? undefined : `only ${push.pushed} of ${PUSH_CHANGES} changes were applied`,
      },
      {
        area: 'studio', name: `${PUSH_CHANGES} changes pushed after a long offline period: the pushing process's longest main-thread stall (event-loop delay max; p99 ${push.delay.p99} ms)`,
        value: push.delay.max, unit: 'ms max', reference: { name: 'same monitor, idle for 2 s (max)', value: push.idle.max, unit: 'ms' },
        ratio: round(push.delay.max / Math.max(push.idle.max, 0.001), 1), ratioNote: 'push/idle', target: '<= 100 ms', status: check(push.delay.max <= 100),
      },
      {
        area: 'studio', name: `joining a ${JOIN_PHOTOS}-photo studio catalogue: time (probe, preview, join, first sync; ${joined.pulled} changes pulled, ${joined.rated} photos rated by them)`,
        value: round(joined.seconds, 1), unit: 's', reference: { name: 'preparing the same library locally (SQLite INSERT ... SELECT of the photos)', value: round(prep.seconds, 1), unit: 's' },
        ratio: round(joined.seconds / prep.seconds, 1), ratioNote: 'join/local insert', target: null, status: joined.rated === JOIN_PHOTOS ? 'INFO' : 'FAIL',
        note: joined.rated === JOIN_PHOTOS ? undefined : `only ${joined.rated} of ${JOIN_PHOTOS} photos got the studio's rating`,
      },
      {
        area: 'studio', name: `joining a ${JOIN_PHOTOS}-photo studio catalogue: peak RSS of the joining process (VmHWM)`,
        value: joined.peakMB, unit: 'MB', reference: { name: 'same process after opening the library', value: joined.openedMB, unit: 'MB' },
        ratio: round(joined.peakMB / joined.openedMB, 1), ratioNote: 'peak/baseline', target: null, status: 'INFO',
      },
      {
        area: 'studio', name: `the server under ${LOAD_REPLICAS} replicas each making ${LOAD_RATE} changes per second for ${LOAD_SECONDS} s: push latency p95 (${loadMs.length} of ${expectedLoad} answered, ${loadErrors} refused or failed)`,
        value: round(loadP95, 1), unit: 'ms p95', reference: { name: 'plain HTTPS round trip to the idle server (GET /v1/hello), p95', value: round(helloP95, 1), unit: 'ms' },
        ratio: round(loadP95 / helloP95, 1), ratioNote: 'push under load/round trip', target: '<= 200 ms', status: check(loadP95 <= 200 && loadErrors === 0 && loadMs.length === expectedLoad),
      },
    ];
    const notes = [
      `The real server: \`tagsmith serve\` as its own process on a throw-away PostgreSQL ${SMALL ? '(small scale) ' : ''}cluster (initdb in a temp dir, Unix socket, fsync off, as the tests make it), HTTPS with its self-signed certificate on loopback. Replicas run the real client code (studio join, syncOnce, the app's StudioLive), each mode in its own Node process${wrap ? ' under a private gnome-keyring (scripts/with-keyring.sh), where each member keeps its password and session' : ''}; their libraries hold the shared folder's photos as rows (as a first scan leaves them), not files.`,
      `Visible on another replica: two libraries in one process, each with StudioLive running as in the app (a change here is sent at once; the other side's long poll wakes on it); the time runs from setRating on A until B's catalogue holds the new rating (its libraryChanged event). The reference is a bare HTTPS request by the same client code (a first contact, on a new TLS connection; replicas keep theirs open between requests).`,
      `Offline push: a library of ${PUSH_CHANGES} photos joins, syncs, then rates every photo with nothing sent (${round(push.editSeconds, 1)} s), then one sync pushes them in pages of 1,000; the event-loop monitor (10 ms resolution) runs in the pushing process. The reference is PostgreSQL writing the same number of rows of the same shape in one statement, the database's floor without the protocol.`,
      `Join: the catalogue studio's log holds one real change (a member rated a photo and pushed it), copied by PostgreSQL (INSERT ... SELECT generate_series) for every photo of the same shared folder; the joining library holds those ${JOIN_PHOTOS} photos unrated and runs what \`tagsmith studio join\` then \`studio sync\` run (probeStudio, joinPreview, joinStudio, syncOnce) in its own process; peak RSS is that process's own VmHWM.`,
      `Load: ${LOAD_REPLICAS} lightweight clients in ${LOAD_PROCESSES} process(es), each a device signed in through the real /v1/login with its own session, pushing one rating change every ${1000 / LOAD_RATE} ms on a fixed schedule (open loop: a slow answer does not delay the next push) through the real client (StudioClient, its TLS connections kept open between requests, the pinned certificate checked on each new one); the latency is each POST /v1/changes until its answer.`,
      'Found by this area and fixed: joining was quadratic three ways (each page of pulled changes listed the folders with their photo counts once per change; each page read the keyword renames and deletes by scanning the whole change log, now indexed (library migration 037); seeding the joining library paged through assets by the removed_at index, reading and sorting every live photo per page), a push wrote its changes with two statements each (now one SELECT and one INSERT per page), and a long poll could miss a push landing between its empty pull and its wait (then a change took the whole 25 s poll to arrive).',
    ];
    return { area: 'studio', figures, notes, detail: { latency: lat, load: { latencies: loadMs, errors: loadErrors }, push, joined, insertMs, prep }, seconds: (Date.now() - t0) / 1000 };
  } finally {
    for (const s of servers) s.kill('SIGKILL');
    pgc?.stop();
  }
}
