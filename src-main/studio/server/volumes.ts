import type { Session } from './accounts';
import type { StudioStore } from './store';
import type { Volume } from '../protocol';

// The studio's volumes: the shared disks (or folders on them) its photos live on. A volume has
// an id and a name, and the path it had on the machine that first shared it; each machine maps
// it to its own mount point (kept on that machine, not here). Registering is idempotent: a
// second machine sharing the same path gets the volume that is already there.

interface Row {
  id: string;
  name: string;
  origin_path: string;
}

const out = (r: Row): Volume => ({ id: r.id, name: r.name, path: r.origin_path });

export async function listVolumes(store: StudioStore): Promise<Volume[]> {
  const r = await store.pool.query<Row>('SELECT id, name, origin_path FROM volumes ORDER BY created_at, id');
  return r.rows.map(out);
}

/** Add a volume (or find the one already shared from the same path). */
export async function addVolume(store: StudioStore, s: Session, v: Volume): Promise<Volume> {
  await store.pool.query('INSERT INTO volumes (id, name, origin_path, user_id, device_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [v.id, v.name, v.path, s.user.id, s.deviceId]);
  const r = await store.pool.query<Row>('SELECT id, name, origin_path FROM volumes WHERE origin_path = $1 OR id = $2 ORDER BY (origin_path = $1) DESC LIMIT 1', [v.path, v.id]);
  return out(r.rows[0]);
}
