import { CliError, UsageError, type Parsed } from '../args';
import type { Command } from '../command';
import type { Output } from '../output';
import { ask, readStdin } from '../prompt';

// `tagsmith serve`: the studio's library server (PostgreSQL behind HTTPS), and its accounts.
//   serve --database URL --listen HOST:PORT [--tls-cert F --tls-key F]
//   serve user add NAME --role admin|editor|viewer --database URL [--password-stdin]
//   serve user list|set NAME [--role R] [--password-stdin]|remove NAME --database URL
// The database URL may leave the password out (PGPASSWORD or ~/.pgpass then give it), so it
// does not show in the process list.

const USAGE = 'serve --database URL --listen HOST:PORT [--tls-cert FILE --tls-key FILE] [--lease-seconds N] | serve user add|list|set|remove ... --database URL';

function database(values: Parsed['values']): string {
  const url = values.database as string | undefined;
  if (!url) throw new UsageError('give the studio database with --database postgres://USER@HOST/DB.', 'serve');
  return url;
}

function listen(text: string | undefined): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text ?? '');
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--listen needs HOST:PORT, e.g. 0.0.0.0:8443 (got “${text ?? ''}”).`, 'serve');
  return { host: m[1] ?? m[2], port };
}

async function password(values: Parsed['values'], prompt: string): Promise<string> {
  return values['password-stdin'] ? readStdin() : ask(prompt, { secret: true, command: 'serve', flagHint: 'pipe the password with --password-stdin.' });
}

async function openStore(url: string) {
  const { StudioStore } = await import('../../studio/server/store');
  try {
    return await StudioStore.open(url);
  } catch (err) {
    throw new CliError(`cannot open the studio database: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function users(args: Parsed, out: Output): Promise<number> {
  const [, verb, name] = args.positionals;
  const accounts = await import('../../studio/server/accounts');
  const store = await openStore(database(args.values));
  try {
    if (verb === 'list') {
      const list = await accounts.listUsers(store);
      out.result({ users: list.map((u) => ({ name: u.name, role: u.role, disabled: u.disabled, createdAt: u.createdAt })) }, () => list.map((u) => `${u.name}\t${u.role}${u.disabled ? '\t(removed)' : ''}`).join('\n') || 'No users yet.');
      return 0;
    }
    if (!name) throw new UsageError(`serve user ${verb ?? ''} needs a user name.`, 'serve');
    if (verb === 'add') {
      const role = args.values.role as string | undefined;
      if (!role) throw new UsageError('serve user add needs --role admin|editor|viewer.', 'serve');
      const user = await accounts.addUser(store, name, role, await password(args.values, `Password for ${name}: `));
      out.result({ user: { name: user.name, role: user.role } }, () => `Added ${user.name} (${user.role}) to the studio.`);
      return 0;
    }
    if (verb === 'set') {
      const role = args.values.role as string | undefined;
      const pw = args.values['password-stdin'] ? await readStdin() : undefined;
      if (role === undefined && pw === undefined) throw new UsageError('serve user set needs --role R and/or --password-stdin.', 'serve');
      const user = await accounts.updateUser(store, name, { role, password: pw });
      out.result({ user: { name: user.name, role: user.role } }, () => `${user.name} is now ${user.role}${pw !== undefined ? ', with a new password (their sessions have ended)' : ''}.`);
      return 0;
    }
    if (verb === 'remove') {
      const user = await accounts.updateUser(store, name, { disable: true });
      out.result({ removed: user.name }, () => `Removed ${user.name}: their sessions have ended; their changes stay attributed to them.`);
      return 0;
    }
    throw new UsageError(`unknown: serve user ${verb ?? ''} (add, list, set or remove).`, 'serve');
  } catch (err) {
    if (err instanceof Error && err.name === 'AccountError') throw new CliError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

async function serve(args: Parsed, out: Output): Promise<number> {
  if (args.positionals.length) throw new UsageError(`unknown: serve ${args.positionals.join(' ')}.`, 'serve');
  const where = listen(args.values.listen as string | undefined);
  const url = database(args.values);
  const leaseText = args.values['lease-seconds'] as string | undefined;
  const leaseS = leaseText === undefined ? undefined : Number(leaseText);
  if (leaseS !== undefined && !(Number.isFinite(leaseS) && leaseS >= 1 && leaseS <= 3600)) throw new UsageError(`--lease-seconds needs a number of seconds from 1 to 3600 (got “${leaseText}”).`, 'serve');
  const store = await openStore(url);
  const { loadIdentity } = await import('../../studio/server/identity');
  const { startStudioServer } = await import('../../studio/server/http');
  let running;
  try {
    const tls = await loadIdentity(store, { cert: args.values['tls-cert'] as string | undefined, key: args.values['tls-key'] as string | undefined });
    if (args.values.name) await store.renameStudio(String(args.values.name));
    running = await startStudioServer(store, { ...where, tls, leaseMs: leaseS === undefined ? undefined : leaseS * 1000 });
  } catch (err) {
    await store.close();
    if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') throw new CliError(`cannot listen on ${where.host}:${where.port}: the port is in use.`);
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  const studio = await store.studio();
  out.result({ url: running.url, studio, fingerprint: running.fingerprint }, () =>
    [`Studio “${studio.name}” is served at ${running.url}`, `Certificate SHA-256: ${running.fingerprint}`, 'Members compare this fingerprint when they join. Stop with Ctrl+C.'].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await store.close();
  return 0;
}

export const command: Command = {
  name: 'serve',
  usage: USAGE,
  summary: 'Run the studio library server (PostgreSQL behind HTTPS), or manage its users.',
  help: [
    '--database URL       the studio database, postgres://USER@HOST[:PORT]/DB (password from PGPASSWORD or ~/.pgpass)',
    '--listen HOST:PORT   where to serve, e.g. 0.0.0.0:8443',
    '--tls-cert FILE      a certificate (PEM) with --tls-key FILE; without them a self-signed one is made once and kept in the database',
    '--name NAME          the studio’s name, shown to members',
    '--lease-seconds N    how long a member’s hold on a file it writes lasts unless renewed (default 60): a writer that dies blocks the file no longer',
    'user add NAME --role admin|editor|viewer [--password-stdin]',
    'user list | user set NAME [--role R] [--password-stdin] | user remove NAME',
  ],
  options: {
    database: { type: 'string' }, listen: { type: 'string' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' }, 'lease-seconds': { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, 'password-stdin': { type: 'boolean' },
  },
  run: () => Promise.reject(new Error('serve runs without a library')),
  runWithoutLibrary(_dataDir, args, out) {
    return args.positionals[0] === 'user' ? users(args, out) : serve(args, out);
  },
};
