// One open connection per agency lane, kept across the lane's queued files (a login per file
// costs seconds on a busy agency server, and some agencies limit logins). It is replaced when
// the address or account changes, dropped when the link is lost, and closed when the lane has
// nothing more queued (or is paused).
import { createHash } from 'node:crypto';
import type { Transport } from './transport';

interface Open {
  key: string;
  transport: Transport;
}

export class LaneConnections {
  private readonly open = new Map<string, Open>();

  /** What identifies a connection: the address and the account (the password only as a hash, never kept). */
  static keyOf(url: string, user: string, password: string): string {
    return `${url}\n${user}\n${createHash('sha256').update(password).digest('hex')}`;
  }

  /** The lane's open connection for this key, or a new one made by `make` (any other one is closed first). */
  async get(lane: string, key: string, make: () => Promise<Transport>): Promise<{ transport: Transport; reused: boolean }> {
    const cur = this.open.get(lane);
    if (cur && cur.key === key && !cur.transport.dropped) return { transport: cur.transport, reused: true };
    if (cur) await this.drop(lane);
    const transport = await make();
    this.open.set(lane, { key, transport });
    return { transport, reused: false };
  }

  /** Close and forget the lane's connection (if any). */
  async drop(lane: string): Promise<void> {
    const cur = this.open.get(lane);
    if (!cur) return;
    this.open.delete(lane);
    await cur.transport.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((lane) => this.drop(lane)));
  }
}
