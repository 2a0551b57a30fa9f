/**
 * An agent the control plane disconnects (it took the agent for lost, after a pause, say)
 * connects and registers again by itself instead of going quiet (and its process exiting); an
 * update the control plane refuses is sent again on the agent's own timer.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '@arbiter/agent';
import { Resources } from '@arbiter/allocator';
import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import pino from 'pino';
import { AgentSessions } from '../../../src/agent-lifecycle/agent-sessions.handler';
import { ProtocolError } from '../../../src/kernel/protocol-error';
import { Realtime } from '../../../src/realtime/realtime';
import { TaskUpdates } from '../../../src/tasks/task-updates.handler';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { until } from '../../support/until';

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
  const id = agent.id;
  await until(async () => ((await t.request('GET', `/api/v1/agents/${agent.id}`)).body as { status: string }).status === 'REACHABLE');
  // Registered again as the same agent, the only one the control plane knows.
  expect(agent.id).toBe(id);
  expect(((await t.request('GET', '/api/v1/agents')).body as { total: number }).total).toBe(1);
  await agent.stop();
});

it('sends a refused status update again on a timer, without registering again, until it is acknowledged', async () => {
  const agent = new Agent({
    master: t.cp.url,
    token: await t.cp.issueServiceToken('retrying-agent'),
    hostname: 'retrying-host',
    resources: [
      { name: 'cpus', value: 1 },
      { name: 'mem', value: 256 },
    ],
    attributes: {},
    workDir: path.join(dir, 'retrying'),
    logger: pino({ level: 'silent' }),
  });
  const registrations = jest.spyOn(t.cp.app.get(AgentSessions), 'register');
  // The control plane refuses the first update it is sent (as during a database outage).
  const status = jest
    .spyOn(t.cp.app.get(TaskUpdates), 'agentStatus')
    .mockRejectedValueOnce(new ProtocolError(PROTOCOL_ERRORS.INTERNAL_ERROR, 'the database is unavailable'));
  agent.start();
  await until(() => agent.id !== undefined);
  const scheduler = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework: { name: 'retries', roles: ['r'] } });
  const states: string[] = [];
  scheduler.on('update', (u) => states.push(u.state));
  const offer = new Promise<Offer>((resolve) => scheduler.once('offers', (offers) => resolve(offers[0])));
  await scheduler.start();
  await scheduler.launch(await offer, [
    { taskId: 'brief', name: 'brief', command: { shell: 'exit 0' }, resources: Resources.fromScalars({ cpus: 0.1, mem: 16 }).toJSON() },
  ]);
  await until(() => states.includes('FINISHED'), 15_000, 'FINISHED delivered');
  expect(states).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
  // Refused once, then sent again by the agent's timer: four calls for three updates, one registration.
  expect(status.mock.calls).toHaveLength(4);
  expect(registrations).toHaveBeenCalledTimes(1);
  expect(agent.pendingUpdates).toBe(0);
  scheduler.close();
  await agent.stop();
});
