import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from './args';

// Questions are asked only on a terminal; a script gets an error telling it which flag to use.

export function canPrompt(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Ask on the terminal; with `secret`, nothing typed is echoed. */
export async function ask(question: string, opts: { secret?: boolean; command: string; flagHint: string }): Promise<string> {
  if (!canPrompt()) throw new UsageError(`not on a terminal: ${opts.flagHint}`, opts.command);
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve) => {
      rl.question(question, (answer) => resolve(answer));
      muted = opts.secret === true;
    });
  } finally {
    rl.close();
    if (opts.secret) process.stderr.write('\n');
  }
}

/** Read all of standard input (for `--secret-stdin`, e.g. from a password manager). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
