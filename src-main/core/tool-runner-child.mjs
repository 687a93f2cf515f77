// The tool runner (tool-runner.ts starts it): a small Node process that starts ffmpeg,
// ffprobe and perl for the app and hands their output back over its IPC channel.
//
// Starting a program from the app's own process copies that process's page tables (fork),
// which grows with its memory: ~20 ms of CPU at 400 MB, over 100 ms during a big scan, each
// time on the main thread. From this process (a few dozen MB) it is a millisecond or two.
// Plain JavaScript with nothing but Node's own modules: it starts as it is, from the sources
// (tests, the CLI, the bench) and from the built app (electron-vite emits it as tool-runner.js).

import { spawn } from 'node:child_process';

/** Tool output kept for an error message. */
const STDERR_KEEP = 64 * 1024;
/** The programs running, by call: how to stop each. @type {Map<number, () => void>} */
const running = new Map();

/**
 * @param {{ id: number, cmd: string, args: string[], timeoutMs: number, maxBuffer: number, input?: Uint8Array }} req
 */
function run(req) {
  let child;
  try {
    child = spawn(req.cmd, req.args, { stdio: [req.input ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
  } catch (err) {
    reply({ id: req.id, spawnError: { code: err?.code ?? null, message: String(err?.message ?? err) } });
    return;
  }
  /** @type {Buffer[]} */
  const out = [];
  let got = 0;
  let stderr = '';
  let killed = false;
  let tooMuch = false;
  let spawnError = null;
  const kill = () => {
    if (killed) return;
    killed = true;
    child.kill('SIGTERM');
  };
  running.set(req.id, kill);
  const timer = req.timeoutMs > 0 ? setTimeout(kill, req.timeoutMs) : null;
  child.stdout.on('data', (d) => {
    got += d.length;
    if (got > req.maxBuffer) {
      tooMuch = true;
      kill();
      return;
    }
    out.push(d);
  });
  child.stderr.on('data', (d) => {
    if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8');
  });
  child.on('error', (err) => {
    spawnError = { code: err.code ?? null, message: err.message };
  });
  if (req.input) {
    child.stdin.on('error', () => undefined); // a tool that stops early closes its input: its exit says why
    child.stdin.end(Buffer.from(req.input.buffer, req.input.byteOffset, req.input.byteLength));
  }
  child.on('close', (code, signal) => {
    if (timer) clearTimeout(timer);
    running.delete(req.id);
    if (spawnError) {
      reply({ id: req.id, spawnError });
      return;
    }
    reply({ id: req.id, code, signal, killed, tooMuch, stderr, stdout: tooMuch ? Buffer.alloc(0) : Buffer.concat(out, got) });
  });
}

function reply(msg) {
  process.send?.(msg);
}

process.on('message', (msg) => {
  if (msg && msg.cancel !== undefined) {
    running.get(msg.cancel)?.();
    return;
  }
  run(msg);
});
// The app went away (its channel closed): stop what runs and end.
process.on('disconnect', () => {
  for (const kill of running.values()) kill();
  process.exit(0);
});
