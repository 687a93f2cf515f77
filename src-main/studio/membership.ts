import { hostname } from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { osKeychain, type KeychainBackend } from '../credentials';
import type { Role, Volume } from './protocol';

// Which studio this library is a replica of: the server, its pinned certificate and who signed
// in, in <library>/studio.json (nothing secret); the password and session token in the OS
// keychain only, under the studio's and this library's ids.

export interface Membership {
  server: string;
  studio: { id: string; name: string };
  fingerprint: string;
  user: string;
  role: Role;
  device: { id: string; name: string };
  joinedAt: string;
  lastSyncAt: string | null;
  /** the change-log position when this library joined: what came before never reached the studio */
  joinPosition?: number;
  /** the change-log position up to which this device's changes are in the studio */
  pushedPosition?: number;
  /** the studio log's number up to which this replica holds the studio's changes */
  pulledSeq?: number;
  /** the result cache's row up to which this library's paid answers are in the studio's cache */
  resultsSharedRow?: number;
  /** true while the copy of the studio's catalogue that joining began is not complete (studio join resumes it) */
  copying?: boolean;
  /** the folders this replica holds (a laptop's subset, studio/subset.ts); absent or null: all of the studio */
  subset?: StudioSubset | null;
  /** the subset grew during a pull (a photo put into a chosen collection): the log is pulled again from the start */
  repull?: boolean;
  /** the studio's volumes and where each is on this computer (studio/volumes.ts) */
  volumes?: LocalVolume[];
}

/** A laptop's part of the studio: the folders on this computer whose photos it holds, and the collections. */
export interface StudioSubset {
  folders: string[];
  /** collections chosen (by name; uid once the studio's collection is known here): their photos are held */
  collections?: Array<{ name: string; uid: string | null }>;
  /** the folders held for the chosen collections' photos (a photo's folder comes with it, see studio/subset.ts) */
  collectionFolders?: string[];
}

/** A studio volume as this machine knows it: where it is mounted here (null: not mapped on this machine). */
export interface LocalVolume extends Volume {
  mount: string | null;
}

export interface StudioSecret {
  password: string;
  token: string;
}

const FILE = 'studio.json';

/** Where a library keeps its membership. */
export const membershipFile = (dataDir: string): string => join(dataDir, FILE);

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

/** This library as the studio sees it: the catalogue's device id, the computer's name. */
export function thisDevice(id: string): { id: string; name: string } {
  return { id, name: hostname() };
}

/** One entry per studio and library: two libraries on one computer may be members of one studio. */
export function studioKeychain(m: Pick<Membership, 'studio' | 'device'>): KeychainBackend {
  return osKeychain('tagsmith', `studio:${m.studio.id}:${m.device.id}`);
}

export async function readSecret(keychain: KeychainBackend): Promise<StudioSecret | null> {
  const text = await keychain.get();
  return text ? (JSON.parse(text) as StudioSecret) : null;
}
