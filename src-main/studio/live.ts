import type { StudioState } from '../../src-preload/contract';
import { log } from '../core/log';
import type { LibraryCtx } from '../library/context';
import { StudioError } from './client';
import { readMembership } from './membership';
import { pendingChanges, syncOnce, waitForStudio } from './replica';
import { volumeStates } from './volumes';

// The app's continuous sync with its studio: sync once, then wait for either a change made
// here (sent at once) or changes of other members (the server's long poll wakes it), and
// again. The window never waits on it: edits go to SQLite first, the sync follows. When the
// server cannot be reached it tries again, after 1 s and then up to every 10 s, and at once
// when something changes here; the top bar and Settings › Studio show the state.

const LONG_POLL_S = 25;
const MAX_BACKOFF_MS = 10_000;

export class StudioLive {
  private running = false;
  private wake: AbortController | null = null;
  private loop: Promise<void> | null = null;
  private connected = false;
  private error: string | null = null;
  private unsubscribe: (() => void) | null = null;
  /** a sync in progress, which syncNow joins instead of starting a second */
  private syncing: Promise<void> | null = null;
  /** a change made here since the last sync started: sync again before waiting */
  private again = false;

  constructor(private readonly ctx: LibraryCtx) {}

  state(): StudioState {
    const m = readMembership(this.ctx.paths.dataDir);
    if (!m) return { member: false, server: null, studio: null, user: null, role: null, fingerprint: null, connected: false, pendingChanges: 0, lastSyncAt: null, error: null, volumes: [], subset: null };
    return {
      member: true,
      server: m.server,
      studio: m.studio,
      user: m.user,
      role: m.role,
      fingerprint: m.fingerprint,
      connected: this.connected,
      pendingChanges: pendingChanges(this.ctx, m),
      lastSyncAt: m.lastSyncAt,
      error: this.error,
      volumes: volumeStates(m, this.ctx.paths.dataDir),
      subset: m.subset ? { folders: m.subset.folders, collections: (m.subset.collections ?? []).map((c) => c.name) } : null,
    };
  }

  private announce(): void {
    this.ctx.events.emit('studioChanged', this.state());
  }

  /** Start syncing when this library is a member (no-op otherwise, or when running). */
  start(): void {
    if (this.running || !readMembership(this.ctx.paths.dataDir)) return;
    this.running = true;
    // A change made here is sent at once: it ends the current wait.
    this.unsubscribe = this.ctx.events.on('libraryChanged', () => {
      const m = readMembership(this.ctx.paths.dataDir);
      if (m && pendingChanges(this.ctx, m) > 0) {
        // Made during a sync (no wait to end yet): the loop syncs again instead of waiting.
        this.again = true;
        this.wake?.abort();
        this.announce();
      }
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.wake?.abort();
    await this.loop;
    this.loop = null;
  }

  /** Sync now; resolves once this replica holds what the server held (or the attempt failed, said in `error`). */
  async syncNow(): Promise<StudioState> {
    await this.syncOnceShared();
    return this.state();
  }

  private syncOnceShared(): Promise<void> {
    this.syncing ??= (async () => {
      try {
        await syncOnce(this.ctx, this.ctx.paths.dataDir);
        this.connected = true;
        this.error = null;
      } catch (err) {
        this.connected = false;
        this.error = err instanceof StudioError ? err.message : 'The studio could not be synced; see the log.';
        if (!(err instanceof StudioError)) log.error('studio sync failed', err);
      } finally {
        this.syncing = null;
        this.announce();
      }
    })();
    return this.syncing;
  }

  private async run(): Promise<void> {
    let backoff = 1000;
    while (this.running) {
      this.again = false;
      await this.syncOnceShared();
      const m = readMembership(this.ctx.paths.dataDir);
      if (!this.running || !m) break;
      if (this.again && this.connected) continue;
      this.wake = new AbortController();
      const signal = this.wake.signal;
      try {
        if (this.connected) {
          backoff = 1000;
          await waitForStudio(m, LONG_POLL_S, signal);
        } else {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, backoff);
            signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
          });
          backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
        }
      } catch {
        // A cut long poll: the next sync says whether the server is there.
      }
      this.wake = null;
    }
  }
}
