import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { osKeychain, type KeychainBackend } from '../credentials';
import type { Role } from './protocol';

// Which studio this library is a replica of: the server, its pinned certificate and who signed
// in, in <library>/studio.json (nothing secret); the password and session token in the OS
// keychain only, under the studio's id.

export interface Membership {
  server: string;
  studio: { id: string; name: string };
  fingerprint: string;
  user: string;
  role: Role;
  device: { id: string; name: string };
  joinedAt: string;
  lastSyncAt: string | null;
}

export interface StudioSecret {
  password: string;
  token: string;
}

const FILE = 'studio.json';

export function readMembership(dataDir: string): Membership | null {
  const p = join(dataDir, FILE);
  if (!existsSync(p)) return null;
  return JSON.parse(readFileSync(p, 'utf8')) as Membership;
}

export function writeMembership(dataDir: string, m: Membership): void {
  mkdirSync(dataDir, { recursive: true });
  const p = join(dataDir, FILE);
  writeFileSync(`${p}.tmp`, JSON.stringify(m, null, 2) + '\n');
  renameSync(`${p}.tmp`, p);
}

export function removeMembership(dataDir: string): void {
  rmSync(join(dataDir, FILE), { force: true });
}

/** This machine as the studio sees it: a stable id per library, its host's name. */
export function newDevice(): { id: string; name: string } {
  return { id: randomUUID(), name: hostname() };
}

export function studioKeychain(studioId: string): KeychainBackend {
  return osKeychain('tagsmith', `studio:${studioId}`);
}

export async function readSecret(keychain: KeychainBackend): Promise<StudioSecret | null> {
  const text = await keychain.get();
  return text ? (JSON.parse(text) as StudioSecret) : null;
}
