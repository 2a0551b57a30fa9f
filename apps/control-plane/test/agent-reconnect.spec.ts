/**
 * An agent the control plane disconnects (it took the agent for lost, after a pause, say)
 * connects and registers again by itself instead of going quiet (and its process exiting).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '@arbiter/agent';
import pino from 'pino';
import { Realtime } from '../src/realtime/realtime';
import { startTestControlPlane, type TestControlPlane } from './support/app';
import { until } from './support/until';

let t: TestControlPlane;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-reconnect-test-'));
fs.chmodSync(dir, 0o711);

beforeAll(async () => (t = await startTestControlPlane()));
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('reconnects and registers again after the control plane closed its connection', async () => {
  const agent = new Agent({
    master: t.cp.url,
    token: await t.cp.issueServiceToken('reconnecting-agent'),
    hostname: 'reconnecting-host',
    resources: [{ name: 'cpus', value: 1 }],
    attributes: {},
    workDir: path.join(dir, 'agent'),
    logger: pino({ level: 'silent' }),
  });
  agent.start();
  const agents = t.cp.app.get(Realtime).io.of('/agents');
  await until(() => agent.id !== undefined && agents.sockets.size === 1);
  const first = [...agents.sockets.keys()][0];
  agents.disconnectSockets(true);
  await until(() => agents.sockets.size === 1 && ![...agents.sockets.keys()].includes(first), 10_000, 'the agent connected again');
  await until(async () => ((await t.request('GET', `/api/v1/agents/${agent.id}`)).body as { status: string }).status === 'REACHABLE');
  await agent.stop();
});
