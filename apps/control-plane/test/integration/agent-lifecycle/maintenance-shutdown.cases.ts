/**
 * Maintenance start shuts the DOWN machines' agents down, as Mesos does: their tasks are LOST,
 * the agents are told to kill them and are disconnected, and they are refused until maintenance
 * stops. A machine named by its IP alone matches the agents connecting from it.
 */
import { Resources } from '@arbiter/allocator';
import type { KillTask, Reply } from '@arbiter/contracts';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

let t: TestControlPlane;
const closers: Array<() => void> = [];
beforeAll(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })));
afterAll(async () => {
  for (const c of closers) c();
  await t.close();
});

const RESOURCES = Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON();
const register = (agent: ProtocolAgent, agentId?: string) =>
  agent.socket.emitWithAck('register', { hostname: 'maint-host', ...(agentId ? { agentId } : {}), resources: RESOURCES }) as Promise<
    Reply<{ agentId: string }>
  >;

it('shuts down the agents of a machine named by IP when maintenance starts, and refuses them until it stops', async () => {
  const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'maint-host', resources: RESOURCES });
  closers.push(() => agent.close());
  const kills: KillTask[] = [];
  agent.socket.on('kill', (m: KillTask) => kills.push(m));
  const agentId = await agent.register();
  const f = new Recorder(t, { name: 'tenant', roles: ['tenant'] });
  closers.push(() => f.s.close());
  await f.s.start();
  await f.s.launch(await f.nextOffer(), [
    {
      taskId: 'resident',
      name: 'resident',
      command: { shell: 'sleep 1000' },
      resources: Resources.fromScalars({ cpus: 1, mem: 64 }).toJSON(),
    },
  ]);
  await until(() => f.states('resident').includes('RUNNING'));

  // The agents connect from 127.0.0.1: the machine is named by that IP only.
  const machine = { ip: '127.0.0.1' };
  await ok(
    t.client.PUT('/api/v1/maintenance/schedule', {
      body: { windows: [{ machines: [machine], unavailability: { start: new Date().toISOString(), durationSeconds: 3600 } }] },
    }),
  );
  await ok(t.client.POST('/api/v1/maintenance/start', { body: { machines: [machine] } }));
  await until(() => f.states('resident').includes('LOST'), 10_000, 'the task LOST');
  // The agent is told to kill it too (after its end is recorded as LOST).
  await until(() => kills.length > 0, 10_000, 'the kill sent to the agent');
  expect(kills.map((k) => k.taskId)).toEqual(['resident']);
  await until(() => !agent.socket.connected, 10_000, 'the agent disconnected');
  expect((await ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } } }))).status).toBe('UNREACHABLE');

  // Refused while the machine is down, under its id or as a new agent.
  const back = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'maint-host', resources: RESOURCES });
  closers.push(() => back.close());
  await new Promise<void>((resolve) => back.socket.once('connect', () => resolve()));
  for (const id of [agentId, undefined]) {
    const refused = await register(back, id);
    expect(refused.ok ? 'registered' : refused.error.code).toBe('MACHINE_DOWN');
  }

  await ok(t.client.POST('/api/v1/maintenance/stop', { body: { machines: [machine] } }));
  const welcomed = await register(back, agentId);
  expect(welcomed.ok).toBe(true);
  await until(() => f.offers.some((o) => o.agentId === agentId && Resources.of(o.resources).get('cpus') === 2), 10_000, 'offered again');
  expect(defined(f.states('resident').filter((s) => s === 'LOST'))).toHaveLength(1);
});
