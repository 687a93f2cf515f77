import { fieldMessage } from '../../src-preload/field-messages';

// Where CLI output goes: results on stdout (JSON with --json, text otherwise), messages and
// progress on stderr, progress only when stderr is a terminal (never in a pipe or a log).

export interface Output {
  json: boolean;
  /** A result: JSON on stdout with --json, else `human()` as text. */
  result(value: unknown, human: () => string): void;
  /** A progress line, overwritten in place; dropped unless stderr is a TTY. */
  progress(line: string): void;
  /** End the progress line, if one is showing. */
  endProgress(): void;
  warn(line: string): void;
}

export function createOutput(json: boolean, stdout: NodeJS.WritableStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): Output {
  const tty = stderr.isTTY === true;
  let showing = false;
  return {
    json,
    result(value, human) {
      const text = json ? JSON.stringify(value, null, 2) : human();
      if (text) stdout.write(text.endsWith('\n') ? text : text + '\n');
    },
    progress(line) {
      if (!tty) return;
      const width = stderr.columns ?? 80;
      stderr.write('\r' + line.slice(0, width - 1).padEnd(width - 1));
      showing = true;
    },
    endProgress() {
      if (showing) stderr.write('\n');
      showing = false;
    },
    warn(line) {
      stderr.write(line + '\n');
    },
  };
}

/**
 * An error's text as the app's panels word it: a service or Api error keyed by a request field
 * ("lora_url: must be…") reads with the field's name on the form ("LoRA weights URL: must be…").
 */
export function plainError(err: { message: string; field?: unknown } | string): string {
  if (typeof err === 'string') return fieldMessage(null, err);
  return fieldMessage(typeof err.field === 'string' ? err.field : null, err.message);
}
