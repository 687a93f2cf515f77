// The queue's events: a job or batch as it changes, each lane's view at most every 200 ms
// (only lanes whose view changed), the status at most every 250 ms after a billed call.
// A failing listener is logged, never breaks the queue.
import { EventEmitter } from 'node:events';
import { log } from '../core/log';
import type { LaneView, QueueEvents, QueueStatus } from './types';

export interface QueueEmitterDeps {
  lanes: () => LaneView[];
  status: () => QueueStatus;
  stopped: () => boolean;
}

export class QueueEmitter {
  private readonly emitter = new EventEmitter();
  private readonly lastLaneKey = new Map<string, string>();
  private laneTimer: NodeJS.Timeout | null = null;
  private statusTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: QueueEmitterDeps) {
    this.emitter.setMaxListeners(50);
  }

  on<E extends keyof QueueEvents>(event: E, listener: (payload: QueueEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  emit<E extends keyof QueueEvents>(event: E, payload: QueueEvents[E]): void {
    try {
      this.emitter.emit(event, payload);
    } catch (e) {
      log.error(`A ${event} listener failed`, e);
    }
  }

  lanesSoon(): void {
    if (this.laneTimer || this.deps.stopped()) return;
    this.laneTimer = setTimeout(() => {
      this.laneTimer = null;
      // Emit every lane whose view changed since the last emit, including one going idle,
      // so a listener never shows a lane as busy after its work is done.
      for (const l of this.deps.lanes()) {
        const key = JSON.stringify([l.running, l.queued, l.paused, l.state]);
        if (this.lastLaneKey.get(l.name) === key) continue;
        this.lastLaneKey.set(l.name, key);
        this.emit('lane', l);
      }
    }, 200);
  }

  statusSoon(): void {
    if (this.statusTimer || this.deps.stopped()) return;
    this.statusTimer = setTimeout(() => { this.statusTimer = null; this.status(); }, 250);
  }

  status(): void {
    this.emit('status', this.deps.status());
  }

  stop(): void {
    if (this.laneTimer) clearTimeout(this.laneTimer);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.laneTimer = this.statusTimer = null;
  }
}
