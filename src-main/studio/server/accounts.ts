import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Role } from '../protocol';
import { ROLES } from '../protocol';
import type { StudioStore } from './store';

// Studio accounts and their sessions. Passwords are hashed with Argon2id (memory-hard; OWASP's
// minimum of 19 MiB, two passes); a session token is 32 random bytes named after its studio,
// and only its SHA-256 is stored, so a copy of the database signs nobody in.

const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** A hash to verify against when the user does not exist, so the answer takes as long either way. */
let dummyHash: Promise<string> | null = null;

export class AccountError extends Error {
  constructor(
    readonly code: 'bad_name' | 'bad_role' | 'weak_password' | 'exists' | 'no_such_user' | 'last_admin',
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

export interface User {
  id: number;
  name: string;
  role: Role;
}

export interface Session {
  user: User;
  deviceId: string;
}

const tokenHash = (token: string): Buffer => createHash('sha256').update(token).digest();

function checkName(name: string): string {
  const n = name.trim();
  if (!/^[\p{L}\p{N}._@-]{1,64}$/u.test(n)) throw new AccountError('bad_name', `“${name}” cannot be a user name: use 1 to 64 letters, digits, dots, dashes, underscores or @.`);
  return n;
}

function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role)) throw new AccountError('bad_role', `“${role}” is not a role: use admin, editor or viewer.`);
  return role as Role;
}

function checkPassword(password: string): void {
  if ([...password].length < 8) throw new AccountError('weak_password', 'The password is too short: use at least 8 characters.');
}

export async function addUser(store: StudioStore, name: string, role: string, password: string): Promise<User> {
  const n = checkName(name);
  const r = checkRole(role);
  checkPassword(password);
  const h = await hash(password, ARGON2);
  const res = await store.pool.query<{ id: string }>('INSERT INTO users (name, role, password_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id', [n, r, h]);
  if (!res.rows.length) throw new AccountError('exists', `There is already a user “${n}” in this studio.`);
  return { id: Number(res.rows[0].id), name: n, role: r };
}

export async function listUsers(store: StudioStore): Promise<Array<User & { disabled: boolean; createdAt: string }>> {
  const r = await store.pool.query<{ id: string; name: string; role: Role; disabled_at: Date | null; created_at: Date }>('SELECT id, name, role, disabled_at, created_at FROM users ORDER BY lower(name)');
  return r.rows.map((u) => ({ id: Number(u.id), name: u.name, role: u.role, disabled: u.disabled_at !== null, createdAt: u.created_at.toISOString() }));
}

async function findUser(store: StudioStore, name: string): Promise<{ id: number; name: string; role: Role; hash: string } | null> {
  const r = await store.pool.query<{ id: string; name: string; role: Role; password_hash: string }>('SELECT id, name, role, password_hash FROM users WHERE lower(name) = lower($1) AND disabled_at IS NULL', [name.trim()]);
  const u = r.rows[0];
  return u ? { id: Number(u.id), name: u.name, role: u.role, hash: u.password_hash } : null;
}

/** Change a user's role or password; the studio always keeps one admin. */
export async function updateUser(store: StudioStore, name: string, change: { role?: string; password?: string; disable?: boolean }): Promise<User> {
  return store.tx(async (db) => {
    const r = await db.query<{ id: string; name: string; role: Role }>('SELECT id, name, role FROM users WHERE lower(name) = lower($1) AND disabled_at IS NULL FOR UPDATE', [name.trim()]);
    const u = r.rows[0];
    if (!u) throw new AccountError('no_such_user', `There is no user “${name}” in this studio.`);
    const role = change.role !== undefined ? checkRole(change.role) : u.role;
    if (u.role === 'admin' && (role !== 'admin' || change.disable)) {
      const admins = await db.query<{ n: string }>("SELECT count(*) AS n FROM users WHERE role = 'admin' AND disabled_at IS NULL");
      if (Number(admins.rows[0].n) <= 1) throw new AccountError('last_admin', `${u.name} is the studio's only admin: make another user admin first.`);
    }
    if (change.password !== undefined) {
      checkPassword(change.password);
      await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [u.id, await hash(change.password, ARGON2)]);
    }
    await db.query('UPDATE users SET role = $2 WHERE id = $1', [u.id, role]);
    if (change.disable || change.password !== undefined) {
      // A removed user, or a changed password, ends every session that user had.
      await db.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [u.id]);
    }
    if (change.disable) await db.query('UPDATE users SET disabled_at = now() WHERE id = $1', [u.id]);
    return { id: Number(u.id), name: u.name, role };
  });
}

/** Check a user's password; null when the name or the password is wrong (the caller does not say which). */
export async function checkLogin(store: StudioStore, name: string, password: string): Promise<User | null> {
  const u = await findUser(store, name);
  if (!u) {
    dummyHash ??= hash('not a password of anyone', ARGON2);
    await verify(await dummyHash, password).catch(() => false);
    return null;
  }
  const ok = await verify(u.hash, password).catch(() => false);
  return ok ? { id: u.id, name: u.name, role: u.role } : null;
}

/** A new session for a signed-in user on one device; the token is returned once and never stored. */
export async function openSession(store: StudioStore, studioId: string, user: User, device: { id: string; name: string }): Promise<string> {
  const token = `${studioId}.${randomBytes(32).toString('base64url')}`;
  await store.tx(async (db) => {
    const owner = await db.query<{ user_id: string }>(
      'INSERT INTO devices (id, user_id, name) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), name = EXCLUDED.name RETURNING user_id',
      [device.id, user.id, device.name],
    );
    // A device is one user's: a second user on the same replica signs it over to themselves.
    if (Number(owner.rows[0].user_id) !== user.id) await db.query('UPDATE devices SET user_id = $2 WHERE id = $1', [device.id, user.id]);
    await db.query('INSERT INTO sessions (token_hash, user_id, device_id) VALUES ($1, $2, $3)', [tokenHash(token), user.id, device.id]);
  });
  return token;
}

export async function findSession(store: StudioStore, token: string): Promise<Session | null> {
  const r = await store.pool.query<{ id: string; name: string; role: Role; device_id: string }>(
    `UPDATE sessions s SET last_used_at = now() FROM users u
       WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND u.id = s.user_id AND u.disabled_at IS NULL
       RETURNING u.id, u.name, u.role, s.device_id`,
    [tokenHash(token)],
  );
  const s = r.rows[0];
  return s ? { user: { id: Number(s.id), name: s.name, role: s.role }, deviceId: s.device_id } : null;
}

export async function closeSession(store: StudioStore, token: string): Promise<void> {
  await store.pool.query('UPDATE sessions SET revoked_at = now() WHERE token_hash = $1', [tokenHash(token)]);
}
