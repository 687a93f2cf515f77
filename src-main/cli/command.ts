import type { LibraryCtx } from '../library/context';
import type { OptionSpecs, Parsed } from './args';
import type { Output } from './output';

/** One CLI command: its usage line, its own options, and what it does. Returns the exit code. */
export interface Command {
  name: string;
  usage: string;
  summary: string;
  /** Option lines for --help, e.g. ['--add K1,K2   keywords to add']. */
  help: string[];
  options: OptionSpecs;
  run(ctx: LibraryCtx, args: Parsed, out: Output): Promise<number>;
  /**
   * Commands that must work on a catalogue that cannot be opened (listing and restoring
   * backups of a damaged one) run here instead, with the library's directory only.
   */
  runWithoutLibrary?(dataDir: string, args: Parsed, out: Output): Promise<number>;
}
