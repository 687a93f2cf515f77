#!/usr/bin/env node
// The `tagsmith` command. Runs the TypeScript sources directly through tsx, so `npx tagsmith`
// works straight after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/cli/index.ts');
const code = await main(process.argv.slice(2));
// Exit explicitly (a stray handle must not keep a finished command alive), but only after
// stdout has drained: on a pipe, writes may still be queued.
process.stdout.write('', () => process.exit(code));
