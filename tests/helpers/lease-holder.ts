import { StudioClient } from '../../src-main/studio/client';
import type { LeaseAnswer, LoginAnswer } from '../../src-main/studio/protocol';

// A writer that holds a studio lease, as a process of its own (tests of issue 34, point 7):
// it signs in as a device, takes the lease on KEY, renews it while it lives and prints "held".
// A line "release" on stdin releases it (the writer finished); SIGKILL is a writer that dies
// holding it (the lease then expires on the server).
// Run: node --import tsx lease-holder.ts URL FINGERPRINT USER PASSWORD DEVICE_ID DEVICE_NAME KEY

const [url, fingerprint, user, password, deviceId, deviceName, key] = process.argv.slice(2);
const client = new StudioClient(new URL(url), fingerprint);
client.setToken((await client.call<LoginAnswer>('POST', '/v1/login', { user, password, device: { id: deviceId, name: deviceName } })).token);
const a = await client.call<LeaseAnswer>('POST', '/v1/leases/take', { key, wait: 30 });
if (!('lease' in a)) {
  process.stdout.write(`busy ${JSON.stringify(a.busy)}\n`);
  process.exit(3);
}
const { id } = a.lease;
setInterval(() => void client.call('POST', '/v1/leases/renew', { key, id }).catch(() => undefined), 200);
process.stdout.write('held\n');
process.stdin.on('data', (d: Buffer) => {
  if (!d.toString().includes('release')) return;
  void client.call('POST', '/v1/leases/release', { key, id }).then(() => {
    process.stdout.write('released\n', () => process.exit(0));
  });
});
