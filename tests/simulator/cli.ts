// npm run simulator -- --port N --client-id ID --client-secret SECRET
//   [--free-quota N] [--balance N] [--task-pending-ms N] [--task-started-ms N]
import { parseArgs } from 'node:util';
import { startSimulator } from './index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'free-quota': { type: 'string' },
    balance: { type: 'string' },
    'task-pending-ms': { type: 'string', default: '2000' },
    'task-started-ms': { type: 'string', default: '5000' },
  },
});

function num(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return n;
}

if (!values['client-id'] || !values['client-secret']) {
  console.error('usage: npm run simulator -- --port N --client-id ID --client-secret SECRET [--free-quota N] [--balance N] [--task-pending-ms N] [--task-started-ms N]');
  process.exit(2);
}

const sim = await startSimulator({
  port: num('port', values.port),
  accounts: [{ clientId: values['client-id'], clientSecret: values['client-secret'] }],
  freeQuota: num('free-quota', values['free-quota']),
  balance: num('balance', values.balance),
  taskClock: { pendingMs: num('task-pending-ms', values['task-pending-ms']), startedMs: num('task-started-ms', values['task-started-ms']) },
});
console.log(sim.url);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
