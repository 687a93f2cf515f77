import { EventEmitter } from 'node:events';
import type { ApiEventName, ApiEvents } from '../../src-preload/contract';

/** The typed event stream main sends to every caller (renderer, e2e bridge, CLI progress). */
export class ApiEventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(50);
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    this.emitter.emit(event, payload);
  }

  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  /** Every event, for forwarding over one channel. */
  onAny(listener: (event: ApiEventName, payload: unknown) => void): () => void {
    const names: ApiEventName[] = ['scanProgress', 'libraryChanged', 'foldersChanged', 'queueJob', 'queueBatch', 'queueLane', 'queueStatus', 'aiRun', 'suggestionsChanged'];
    const offs = names.map((name) => this.on(name, (payload) => listener(name, payload)));
    return () => offs.forEach((off) => off());
  }
}
