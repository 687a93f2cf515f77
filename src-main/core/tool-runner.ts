import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Outside programs (ffmpeg, ffprobe, perl) are started by a small helper process, the tool
// runner (tool-runner-child.mjs), not by the app's own process: starting one from here copies
// this process's page tables, which cost ~20 ms of the main thread's CPU at 400 MB and over
// 100 ms during a big scan (40 of them for 20 videos: 4.5 s of a first scan's main thread).
// The runner starts on the first call and never keeps the app alive while idle. Should it be
// unable to start, or die, the program is started from here instead: slower for the window,
// never a missing result.

export interface ProcessOptions {
  /** The program is stopped (SIGTERM) after this long; its error says `killed`. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Written to the program's standard input, which is then closed. */
  input?: Buffer;
  /** Standard output beyond this stops the program (default 64 MB). */
  maxBuffer?: number;
  /** Start it from this process (a big output, which the runner would copy once more). */
  local?: boolean;
}

/** How a program ended, as the runner or this process saw it. */
interface Outcome {
  spawnError?: { code: string | null; message: string };
  code?: number | null;
  signal?: NodeJS.Signals | null;
  killed?: boolean;
  tooMuch?: boolean;
  stderr?: string;
  stdout?: Uint8Array;
}

/** A program that could not start (`code` 'ENOENT', 'EACCES'...) or ended badly (`code` its exit code). */
export interface ProcessFailure extends Error {
  code: string | number | null;
  signal: NodeJS.Signals | null;
  killed: boolean;
  stderr: string;
}

const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;
const STDERR_KEEP = 64 * 1024;

/** The program's standard output; a ProcessFailure when it cannot start or does not exit with 0. */
export async function runProcess(cmd: string, args: string[], opts: ProcessOptions): Promise<Buffer> {
  const req = { cmd, args, timeoutMs: opts.timeoutMs, maxBuffer: opts.maxBuffer ?? DEFAULT_MAX_BUFFER, input: opts.input };
  let outcome: Outcome | null = null;
  if (!opts.local) outcome = await viaRunner(req, opts.signal);
  outcome ??= await runHere(req, opts.signal);
  return settle(cmd, args, outcome);
}

function settle(cmd: string, args: string[], o: Outcome): Buffer {
  const fail = (message: string, code: string | number | null): never => {
    throw Object.assign(new Error(message), { code, signal: o.signal ?? null, killed: o.killed ?? false, stderr: o.stderr ?? '' }) as ProcessFailure;
  };
  if (o.spawnError) fail(`${cmd} could not be started: ${o.spawnError.message}`, o.spawnError.code);
  if (o.tooMuch) fail(`${cmd} wrote more output than expected and was stopped`, null);
  if (o.code !== 0) fail(`Command failed: ${cmd} ${args.join(' ')}\n${o.stderr ?? ''}`, o.code ?? null);
  const out = o.stdout ?? new Uint8Array(0);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

// ------------------------------------------------------------------------------ in this process

function runHere(req: { cmd: string; args: string[]; timeoutMs: number; maxBuffer: number; input?: Buffer }, signal?: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(req.cmd, req.args, { stdio: [req.input ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      resolve({ spawnError: { code: (err as NodeJS.ErrnoException).code ?? null, message: (err as Error).message } });
      return;
    }
    const out: Buffer[] = [];
    let got = 0;
    let stderr = '';
    const o: Outcome = { killed: false, tooMuch: false };
    const kill = (): void => {
      if (o.killed) return;
      o.killed = true;
      child.kill('SIGTERM');
    };
    const timer = req.timeoutMs > 0 ? setTimeout(kill, req.timeoutMs) : null;
    if (signal?.aborted) kill();
    signal?.addEventListener('abort', kill, { once: true });
    child.stdout!.on('data', (d: Buffer) => {
      got += d.length;
      if (got > req.maxBuffer) {
        o.tooMuch = true;
        kill();
        return;
      }
      out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      o.spawnError = { code: err.code ?? null, message: err.message };
    });
    if (req.input) {
      child.stdin!.on('error', () => undefined); // a tool that stops early closes its input: its exit says why
      child.stdin!.end(req.input);
    }
    child.on('close', (code, sig) => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      resolve({ ...o, code, signal: sig, stderr, stdout: o.tooMuch ? undefined : Buffer.concat(out, got) });
    });
  });
}

// ------------------------------------------------------------------------------ the runner

interface Runner {
  child: ChildProcess;
  /** Calls in flight: resolved with the outcome, or with null when the runner died (run here then). */
  waiting: Map<number, (o: Outcome | null) => void>;
}

let runner: Runner | null = null;
let broken = false;
let nextId = 1;

/** The runner's script: the sources' .mjs beside this file, or the build's tool-runner.js beside the bundle. */
function runnerScript(): string | null {
  const here = import.meta.url;
  if (/\.ts$/.test(new URL(here).pathname)) return fileURLToPath(new URL('./tool-runner-child.mjs', here));
  for (const rel of ['./tool-runner.js', '../tool-runner.js']) {
    const path = fileURLToPath(new URL(rel, here));
    if (existsSync(path)) return path;
  }
  return null;
}

function startRunner(): Runner | null {
  const script = runnerScript();
  if (!script) return null;
  let child: ChildProcess;
  try {
    // Run as plain Node (Electron's binary too), with none of this process's flags (a test
    // runner's loaders, a profiler): the script needs nothing but Node's own modules.
    child = fork(script, [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
  } catch {
    return null;
  }
  const r: Runner = { child, waiting: new Map() };
  const die = (): void => {
    if (runner === r) runner = null;
    broken = true;
    for (const done of r.waiting.values()) done(null);
    r.waiting.clear();
  };
  child.on('message', (msg: Outcome & { id: number }) => {
    const done = r.waiting.get(msg.id);
    r.waiting.delete(msg.id);
    done?.(msg);
    if (r.waiting.size === 0) idle(r);
  });
  child.on('error', die);
  child.on('exit', die);
  return r;
}

/** An idle runner does not keep the app (a CLI command, a test) alive. */
function idle(r: Runner): void {
  r.child.unref();
  (r.child.channel as { unref?: () => void } | undefined)?.unref?.();
}

function busy(r: Runner): void {
  r.child.ref();
  (r.child.channel as { ref?: () => void } | undefined)?.ref?.();
}

/** The outcome from the runner; null when it cannot run here (the caller starts the program itself). */
function viaRunner(req: { cmd: string; args: string[]; timeoutMs: number; maxBuffer: number; input?: Buffer }, signal?: AbortSignal): Promise<Outcome | null> {
  if (broken) return Promise.resolve(null);
  runner ??= startRunner();
  const r = runner;
  if (!r) {
    broken = true;
    return Promise.resolve(null);
  }
  const id = nextId++;
  return new Promise((resolve) => {
    const cancel = (): void => {
      r.child.send({ cancel: id }, () => undefined);
    };
    if (signal?.aborted) queueMicrotask(cancel);
    signal?.addEventListener('abort', cancel, { once: true });
    r.waiting.set(id, (o) => {
      signal?.removeEventListener('abort', cancel);
      resolve(o);
    });
    busy(r);
    try {
      r.child.send({ id, ...req }, (err) => {
        if (!err) return;
        // The runner's channel is gone: it is dying; its exit settles this call (run here).
      });
    } catch {
      r.waiting.delete(id);
      resolve(null);
    }
  });
}
