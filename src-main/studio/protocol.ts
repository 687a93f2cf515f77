// The studio's wire protocol: what a replica and `tagsmith serve` say to each other over HTTPS.
// Both sides import these types and constants; the server is the only process that talks to
// PostgreSQL, clients hold a session token, never database credentials.

import type { SharedResult, StudioCaps, UsageRow } from '../jobs/shared-account';

export type { StudioCaps, UsageRow };

/** The protocol this build speaks. A server accepts clients from MIN_PROTOCOL to PROTOCOL. */
export const PROTOCOL = 1;
export const MIN_PROTOCOL = 1;

/** Every request carries the client's protocol in this header; every answer the server's. */
export const PROTOCOL_HEADER = 'tagsmith-protocol';

export type Role = 'admin' | 'editor' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'editor', 'viewer'];

/** One change as a replica pushes it: its device and that device's sequence make it unique. */
export interface ChangeIn {
  deviceSeq: number;
  /** the hybrid-logical-clock time of the change, as the device stamped it (comparable as text) */
  hlc: string;
  /** what kind of operation (e.g. 'asset.set', 'asset.keywords', 'collection.members') */
  kind: string;
  body: unknown;
}

/** One change as the studio's log holds it: numbered in commit order, attributed to its user. */
export interface ChangeOut extends ChangeIn {
  seq: number;
  deviceId: string;
  user: string;
  receivedAt: string;
}

export interface HelloAnswer {
  studio: { id: string; name: string };
  protocol: number;
  minProtocol: number;
}

export interface LoginRequest {
  user: string;
  password: string;
  device: { id: string; name: string };
}

export interface LoginAnswer {
  token: string;
  user: { name: string; role: Role };
  studio: { id: string; name: string };
}

export interface PushAnswer {
  /** changes newly written to the studio's log */
  applied: number;
  /** changes the log already held (a replay or a retry after a cut connection): not applied again */
  duplicates: number;
  /** the studio log's newest number after the push */
  last: number;
}

export interface PullAnswer {
  changes: ChangeOut[];
  /** the newest number in this answer (or `after` when none) */
  last: number;
  /** the studio log's newest number when the answer was made */
  head: number;
}

/** A service result the studio keeps for all its machines (the result cache is the studio's). */
export type { SharedResult };

/** POST /v1/results/claim: the studio's result, the claim to make it here, or who holds it still. */
export type ClaimAnswer = { result: SharedResult } | { claimed: true } | { busy: { user: string } };

/** POST /v1/account/slot: a slot of the account's pace, or none yet (ask again). */
export interface SlotAnswer {
  slot: string | null;
}

/**
 * POST /v1/leases/take and /renew: the lease (one holder at a time across the studio, for
 * `ttlMs` unless renewed), or who holds it now.
 */
export type LeaseAnswer = { lease: { id: string; key: string; ttlMs: number } } | { busy: { user: string; device: string } };

/**
 * POST /v1/account/usage: what the other machines of the studio have been billed this month
 * (this device's own calls left out: it knows them better), and the studio's caps when an
 * admin set them (null: none, each machine's own apply).
 */
export interface UsageAnswer {
  others: UsageRow[];
  caps: StudioCaps | null;
}

/** A shared disk (or a folder on one) of the studio: its id, its name, its path on the machine that first shared it. */
export interface Volume {
  id: string;
  name: string;
  path: string;
}

/** The error body of every refused request: a message a person can act on. */
export interface ErrorAnswer {
  error: { code: string; message: string };
}

/** Session tokens name their studio, so a token of another studio is refused as such. */
export function tokenStudio(token: string): string | null {
  const dot = token.indexOf('.');
  return dot > 0 ? token.slice(0, dot) : null;
}
