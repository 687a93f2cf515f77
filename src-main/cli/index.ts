import { readAppSettings } from '../core/app-settings';
import { resolveDataDir } from '../core/paths';
import { setToolPaths } from '../core/tools';
import type { LibraryCtx } from '../library/context';
import { CliError, UsageError, parseCommandArgs, splitCommand } from './args';
import type { Command } from './command';
import { createOutput, plainError } from './output';

// `tagsmith [--library DIR] [--json] <command> ...` — the same library code the app runs,
// for batch work and for checks. Exit codes: 0 the command ran (a batch may still report
// per-file errors in its output), 1 it could not do its job, 2 bad arguments.

// Loaded on demand so `search` does not pay for sharp and exiftool at start-up.
const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  index: () => import('./commands/index-folders'),
  search: () => import('./commands/search'),
  show: () => import('./commands/show'),
  tag: () => import('./commands/tag'),
  caption: () => import('./commands/caption'),
  rate: () => import('./commands/rate'),
  label: () => import('./commands/label'),
  rename: () => import('./commands/rename'),
  collection: () => import('./commands/collection'),
  folders: () => import('./commands/folders'),
  undo: () => import('./commands/undo'),
  login: () => import('./commands/login'),
  logout: () => import('./commands/logout'),
  jobs: () => import('./commands/jobs'),
  keyword: () => import('./commands/keyword'),
  'keyword-list': () => import('./commands/keyword-list'),
  export: () => import('./commands/export'),
  agencies: () => import('./commands/agencies'),
  check: () => import('./commands/check'),
  upload: () => import('./commands/upload'),
  'agency-login': () => import('./commands/agency-login'),
  voices: () => import('./commands/voices'),
  speak: () => import('./commands/speak'),
  lipsync: () => import('./commands/lipsync'),
  generate: () => import('./commands/generate'),
  edit: () => import('./commands/edit'),
  vectorize: () => import('./commands/vectorize'),
  swap: () => import('./commands/swap'),
  tasks: () => import('./commands/tasks'),
  quality: () => import('./commands/quality'),
  faces: () => import('./commands/faces'),
  doctor: () => import('./commands/doctor'),
  backup: () => import('./commands/backup'),
  backups: () => import('./commands/backups'),
  restore: () => import('./commands/restore'),
  similar: () => import('./commands/similar'),
  'similar-to': () => import('./commands/similar-to'),
  serve: () => import('./commands/serve'),
  studio: () => import('./commands/studio'),
};

const SUMMARIES: Record<string, string> = {
  index: 'index PATH...                     add folders (or rescan them) and wait for the scan',
  search: 'search [TEXT] [filters]           find assets',
  show: 'show PATH                         one asset with its recorded errors',
  tag: 'tag PATH... --add K1,K2 --remove K3',
  caption: 'caption PATH... --set TEXT|--clear | [--length L] [--accept]  set by hand, or AI suggestions',
  rate: 'rate PATH... --stars N',
  label: 'label PATH... --color red|yellow|green|blue|purple|none  the colour label',
  rename: 'rename PATH...|--query Q --template T [--start N] [--dry-run]  rename files from a template',
  collection: 'collection list|create|smart|add|remove|rename|delete  collections, smart collections (saved searches) and sets',
  folders: 'folders                           list library folders',
  undo: 'undo                              undo the most recent edit',
  login: 'login [--client-id ID]            store the service key pair in the OS keychain',
  logout: 'logout                            remove the stored key pair',
  jobs: 'jobs [--state S]...               the service job queue: batches, jobs, usage',
  keyword: 'keyword PATH...|--query Q [--lang L] [--num N] [--threshold T] [--accept-above S]  the billed AI keyword run (service)',
  'keyword-list': 'keyword-list export FILE | import FILE [--json]  manage the keyword vocabulary (Lightroom keyword lists, synonyms); no service call',
  export: 'export PATH...|--query Q --write-files | --csv FILE --agency adobe|shutterstock [--force]',
  agencies: 'agencies                          stock agency profiles: ids, upload protocols, CSV, rules',
  check: 'check --agency ID PATH...|--query Q   photos against an agency’s rules: verdicts and what to fix',
  upload: 'upload --agency ID PATH...|--query Q [--url ftp://|ftps://|sftp://HOST[:PORT]/DIR] [--force]  send to an agency',
  'agency-login': 'agency-login --agency ID [--url URL] [--user U] [--password-stdin]  store an agency upload account',
  voices: 'voices [--lang L]                 text-to-speech voices',
  speak: 'speak --voice V --text T|--file F [--title T]  speech into the library',
  lipsync: 'lipsync --audio A --video V|--image I [--resolution R]',
  generate: 'generate --prompt P [--model M] [--size S] [--resolution R] [--quality Q] [--seed N]',
  edit: 'edit --prompt P IMAGE... [--model M] [--quality Q] [--megapixel-ratio R]  edit images into a new one',
  vectorize: 'vectorize IMAGE...                pictures into SVGs in the library',
  swap: 'swap --donor FACE --target IMAGE|VIDEO  a face onto a picture or into a video',
  tasks: 'tasks                             creative tasks and their results',
  quality: 'quality PATH...|--query Q [--ugc]       AI quality scores (stock, or UGC with class 1-5)',
  faces: 'faces PATH...|--query Q             AI face boxes and estimated ages',
  doctor: 'doctor                            check the tools (ffmpeg, ffprobe, exiftool, perl), the catalogue and the service',
  backup: 'backup                            back the catalogue up now (kept beside it, newest 7 by default)',
  backups: 'backups                           list the catalogue backups',
  restore: 'restore BACKUP [--yes]            put a backup in place of the catalogue (the current one is kept as a backup)',
  similar: 'similar [PATH...|--query Q]       groups of similar pictures (bursts, near-duplicates) and the best frame of each',
  'similar-to': 'similar-to PATH [--limit N]       the pictures most similar to one, nearest first',
  serve: 'serve --database URL --listen HOST:PORT  the studio library server (PostgreSQL); serve user add|list|set|remove',
  studio: 'studio join URL --user NAME | status | sync | leave  share this library with a studio',
};

function generalUsage(): string {
  return [
    'Usage: tagsmith [--library DIR] [--json] <command> [options]',
    '',
    'Commands:',
    ...Object.values(SUMMARIES).map((s) => '  ' + s),
    '',
    'Global options (before or after the command):',
    '  --library DIR   the library to use (default: $TAGSMITH_HOME, else the per-user data folder)',
    '  --service-url URL  the media-AI service address (default: the one set in the app, else the vendor\'s)',
    '  --json          machine-readable output on stdout',
    '  --yes, -y       answer yes to any confirmation',
    '  --help, -h      help for tagsmith or a command',
  ].join('\n');
}

function commandUsage(c: Command): string {
  return [`Usage: tagsmith ${c.usage}`, '', c.summary, ...(c.help.length ? ['', 'Options:', ...c.help.map((h) => '  ' + h)] : []), '', 'Also: --library DIR, --json, --yes, --help'].join('\n');
}

export interface MainIo {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

export async function main(argv: string[], io: MainIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const fail = (code: number, message: string, hint?: string): number => {
    stderr.write(`tagsmith: ${message}\n${hint ? hint + '\n' : ''}`);
    return code;
  };
  const { command: name, rest } = splitCommand(argv);
  let ctx: LibraryCtx | null = null;
  try {
    if (name === null) {
      const { globals } = parseCommandArgs(rest, {});
      if (globals.help) {
        stdout.write(generalUsage() + '\n');
        return 0;
      }
      return fail(2, 'no command given.', generalUsage());
    }
    if (name === 'help') {
      stdout.write(generalUsage() + '\n');
      return 0;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) return fail(2, `unknown command “${name}”.`, 'Run `tagsmith --help` for the list of commands.');
    const { command } = await load();
    const parsed = parseCommandArgs(rest, command.options, name);
    if (parsed.globals.help) {
      stdout.write(commandUsage(command) + '\n');
      return 0;
    }
    const dataDir = resolveDataDir(parsed.globals.library, io.env ?? process.env);
    const { ffmpeg, ffprobe } = readAppSettings(dataDir).toolPaths;
    setToolPaths({ ffmpeg: ffmpeg ?? null, ffprobe: ffprobe ?? null });
    if (command.runWithoutLibrary) return await command.runWithoutLibrary(dataDir, parsed, createOutput(parsed.globals.json, stdout, stderr));
    const { openLibrary } = await import('../library/context');
    try {
      ctx = openLibrary(dataDir);
    } catch (err) {
      return fail(1, `cannot open the library at ${dataDir}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return await command.run(ctx, parsed, createOutput(parsed.globals.json, stdout, stderr));
  } catch (err) {
    if (err instanceof UsageError) {
      return fail(2, err.message, `Run \`tagsmith ${err.command ? err.command + ' ' : ''}--help\` for usage.`);
    }
    if (err instanceof CliError) return fail(1, err.message);
    if (err instanceof Error && err.name === 'ApiError') return fail(1, plainError(err));
    // The service's answers (401, 429, 502, unreadable, ...) and refusals before sending: one line that says why, no stack.
    if (err instanceof Error && err.name === 'ServiceError') return fail(1, plainError(err));
    return fail(1, `unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    ctx?.db.close();
  }
}
