import { EventEmitter } from 'node:events';
import type { ApiEventName, ApiEvents } from '../../src-preload/contract';

const ANY = Symbol('any event');

/** The typed event stream main sends to every caller (renderer, e2e bridge, CLI progress). */
export class ApiEventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(50);
  }

  emit<E extends ApiEventName>(event: E, payload: ApiEvents[E]): void {
    this.emitter.emit(event, payload);
    this.emitter.emit(ANY, event, payload);
  }

  on<E extends ApiEventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  /** Every event, for forwarding over one channel (no list of names to keep in step). */
  onAny(listener: (event: ApiEventName, payload: unknown) => void): () => void {
    this.emitter.on(ANY, listener);
    return () => this.emitter.off(ANY, listener);
  }
}
