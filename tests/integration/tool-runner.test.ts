import { describe, expect, it } from 'vitest';
import { runProcess, type ProcessFailure } from '../../src-main/core/tool-runner';
import { runTool, ToolMissingError } from '../../src-main/core/tools';
import { until } from '../helpers/until';

// Outside programs are started by the tool runner, a small process of its own, not by the
// app's process (whose fork would copy its page tables on the main thread each time).

async function failure(p: Promise<unknown>): Promise<ProcessFailure> {
  try {
    await p;
  } catch (err) {
    return err as ProcessFailure;
  }
  throw new Error('expected the program to fail');
}

describe('the tool runner', () => {
  it('starts programs from its own process, not from the app', async () => {
    const ppid = Number((await runProcess('sh', ['-c', 'echo $PPID'], { timeoutMs: 30_000 })).toString().trim());
    expect(ppid).toBeGreaterThan(0);
    expect(ppid).not.toBe(process.pid);
    // Two calls, one runner.
    const again = Number((await runProcess('sh', ['-c', 'echo $PPID'], { timeoutMs: 30_000 })).toString().trim());
    expect(again).toBe(ppid);
  });

  it('hands over standard output as bytes, feeds standard input, and reports a failure with its exit code and stderr', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    expect((await runProcess('cat', [], { timeoutMs: 30_000, input: bytes })).equals(bytes)).toBe(true);
    const err = await failure(runProcess('sh', ['-c', 'echo "bad input" >&2; exit 3'], { timeoutMs: 30_000 }));
    expect(err.code).toBe(3);
    expect(err.stderr).toContain('bad input');
    expect(err.killed).toBe(false);
  });

  it('stops a program that runs too long or writes too much, and names a missing one as missing', async () => {
    const slow = await failure(runProcess('sleep', ['30'], { timeoutMs: 100 }));
    expect(slow.killed).toBe(true);
    expect(slow.signal).toBe('SIGTERM');
    const chatty = await failure(runProcess('sh', ['-c', 'head -c 100000 /dev/zero'], { timeoutMs: 30_000, maxBuffer: 1000 }));
    expect(chatty.message).toMatch(/more output than expected/);
    const missing = await failure(runProcess('/nonexistent/tagsmith-tool', [], { timeoutMs: 30_000 }));
    expect(missing.code).toBe('ENOENT');
    const ac = new AbortController();
    const cancelled = failure(runProcess('sleep', ['30'], { timeoutMs: 60_000, signal: ac.signal }));
    ac.abort();
    expect((await cancelled).killed).toBe(true);
  });

  it('runTool says a tool that is not there is missing', async () => {
    const prev = process.env.TAGSMITH_FFPROBE;
    process.env.TAGSMITH_FFPROBE = '/nonexistent/ffprobe';
    try {
      await expect(runTool('ffprobe', ['-version'], { timeoutMs: 30_000 })).rejects.toBeInstanceOf(ToolMissingError);
    } finally {
      if (prev === undefined) delete process.env.TAGSMITH_FFPROBE;
      else process.env.TAGSMITH_FFPROBE = prev;
    }
  });

  it('when the runner dies, programs are started from the app instead and still answer', async () => {
    const runnerPid = Number((await runProcess('sh', ['-c', 'echo $PPID'], { timeoutMs: 30_000 })).toString().trim());
    expect(runnerPid).not.toBe(process.pid);
    process.kill(runnerPid, 'SIGKILL');
    const answers = await Promise.all([1, 2, 3].map((n) => runProcess('sh', ['-c', `echo ${n} $PPID`], { timeoutMs: 30_000 })));
    expect(answers.map((a) => a.toString().trim().split(' ')[0])).toEqual(['1', '2', '3']);
    // Once the runner is gone it is not started again: the next programs start from here.
    await until(async () => Number((await runProcess('sh', ['-c', 'echo $PPID'], { timeoutMs: 30_000 })).toString().trim()) === process.pid);
  });
});
