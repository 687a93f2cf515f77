import { parseArgs, type ParseArgsConfig } from 'node:util';

// Command-line parsing: global flags (--library, --json, --yes, --help) may come before or
// after the command; everything else is the command's own options and positionals, parsed
// strictly so a typo is an error, not a silently ignored flag.

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Bad arguments: the CLI prints the message with a usage hint and exits 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command could not do its job (unknown path, unreadable library): exit 1 with the message. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export const GLOBAL_OPTIONS = {
  library: { type: 'string' },
  'service-url': { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface Globals {
  library?: string;
  serviceUrl?: string;
  json: boolean;
  yes: boolean;
  help: boolean;
}

/** Find the command name: the first positional that is not the value of --library. */
export function splitCommand(argv: readonly string[]): { command: string | null; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--library' || a === '--service-url') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return { command: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: null, rest: [...argv] };
}

export interface Parsed {
  globals: Globals;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * node:util refuses a value that starts with a dash (`--focal -35`, an open range) as
 * ambiguous; for a string option followed by something that reads as a number or a range,
 * the two are joined as `--focal=-35`.
 */
function joinDashValues(args: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const next = args[i + 1];
    if (a.startsWith('--') && !a.includes('=') && options[a.slice(2)]?.type === 'string' && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

export function parseCommandArgs(args: readonly string[], options: OptionSpecs, command?: string): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args: joinDashValues(args, options), options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    // node:util's messages name the offending option; drop its hint about '--' which only confuses.
    const msg = err instanceof Error ? err.message.replace(/\s*To specify a positional argument.*$/s, '') : String(err);
    throw new UsageError(msg, command);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  return {
    globals: { library: v.library as string | undefined, serviceUrl: v['service-url'] as string | undefined, json: v.json === true, yes: v.yes === true, help: v.help === true },
    values: v,
    positionals: parsed.positionals,
  };
}

/** "a,b" and repeated flags, flattened, trimmed, empties dropped. */
export function listValue(v: string | boolean | string[] | undefined): string[] {
  const raw = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  return raw.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

export function intValue(v: string | boolean | string[] | undefined, name: string, min: number, max: number, command?: string): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const n = Number(s);
  if (!/^-?\d+$/.test(s) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got “${s}”).`, command);
  return n;
}

/** A decimal number within [min, max] (e.g. --megapixel-ratio 0.75). */
export function numberValue(v: string | boolean | string[] | undefined, name: string, min: number, max: number, command?: string): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const n = Number(s);
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(s) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max} (got “${s}”).`, command);
  return n;
}

/**
 * An inclusive range `MIN-MAX` where either end may be left open (`800-`, `-35`), or a single
 * value `N` (exactly N). Undefined when the option is not given.
 */
export function rangeValue(v: string | boolean | string[] | undefined, name: string, command?: string): { min?: number; max?: number } | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const num = '(\\d+(?:\\.\\d*)?|\\.\\d+)';
  const m = new RegExp(`^${num}?(-)?${num}?$`).exec(s);
  const bad = () => new UsageError(`--${name} must be a range MIN-MAX, MIN- or -MAX, such as 100-800, 800- or -35 (got “${s}”).`, command);
  if (!m || (m[1] === undefined && m[3] === undefined)) throw bad();
  if (m[2] === undefined) return { min: Number(m[1]), max: Number(m[1]) };
  const r: { min?: number; max?: number } = {};
  if (m[1] !== undefined) r.min = Number(m[1]);
  if (m[3] !== undefined) r.max = Number(m[3]);
  if (r.min !== undefined && r.max !== undefined && r.min > r.max) throw new UsageError(`--${name}: the lower end ${r.min} is above the upper end ${r.max}.`, command);
  return r;
}
