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
  // Only a message keyed by its field's request name is led by the field's name on the form; a
  // message that is a sentence of its own ("The service address http://… is not secure…")
  // keeps its words, as the command line always showed it.
  const field = typeof err.field === 'string' && keyedBy(err.message, err.field) ? err.field : null;
  return fieldMessage(field, err.message);
}

/** Whether a message begins with the request field's own name ("lora_url: …", "Invalid request to x: “loraUrl” …"). */
function keyedBy(message: string, field: string): boolean {
  const m = message.trim().replace(/^Invalid request to \w+: /, '').replace(/^The service refused the request: /, '');
  return [`${field}: `, `“${field}” `, `${field} `].some((p) => m.startsWith(p));
}
