/**
 * Draining an agent finishes (Mesos's DRAIN_AGENT): its tasks are killed with the drain's grace
 * period, the agent is DRAINED once the last has ended, and with markGone it is GONE and refused
 * from then on.
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
// Each test's agents and frameworks go with it: none holds offers another test waits for.
afterEach(() => {
  for (const c of closers.splice(0)) c();
});
afterAll(() => t.close());

const agentView = (id: string) => ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
const task = (taskId: string) => ({
  taskId,
  name: taskId,
  command: { shell: 'sleep 1000' },
  resources: Resources.fromScalars({ cpus: 1, mem: 64 }).toJSON(),
});

/** An agent with two running tasks of framework `name`, and the kills it is sent. */
async function busyAgent(hostname: string, name: string, capabilities: Array<'TASK_KILLING_STATE'> = []) {
  // The framework first: the new agent is offered to it rather than to an earlier test's framework.
  const f = new Recorder(t, { name, roles: [name], capabilities });
  closers.push(() => f.s.close());
  await f.s.start();
  const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname, resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON() });
  closers.push(() => agent.close());
  const kills: KillTask[] = [];
  agent.socket.on('kill', (m: KillTask) => kills.push(m));
  const agentId = await agent.register();
  await until(() => f.offers.some((o) => o.agentId === agentId), 10_000, `an offer of ${hostname} to ${name}`);
  const offer = defined(f.offers.find((o) => o.agentId === agentId));
  await f.s.launch(offer, [task(`${name}-1`), task(`${name}-2`)]);
  await until(() => f.states(`${name}-1`).includes('RUNNING') && f.states(`${name}-2`).includes('RUNNING'));
  return { agent, agentId, f, kills };
}

it('kills the tasks with the grace period, then the agent is DRAINED and offers nothing', async () => {
  const { agentId, f, kills } = await busyAgent('drained-host', 'drainee');
  const res = await t.request('POST', `/api/v1/agents/${agentId}/drain`, { maxGracePeriodSeconds: 7 });
  expect(res.status).toBe(200);
  // The answer is the drain as committed: both tasks left to kill, however fast they are killed.
  expect(res.body).toMatchObject({ activated: false, drainState: 'DRAINING', usage: { activeTasks: 2 } });
  await until(() => f.states('drainee-1').includes('KILLED') && f.states('drainee-2').includes('KILLED'), 10_000, 'the tasks KILLED');
  expect(kills.map((k) => [k.taskId, k.gracePeriodSeconds]).sort()).toEqual([
    ['drainee-1', 7],
    ['drainee-2', 7],
  ]);
  await until(async () => (await agentView(agentId)).drainState === 'DRAINED', 10_000, 'the agent DRAINED');
  expect((await agentView(agentId)).status).toBe('REACHABLE');
  // Drained: reactivating it brings its offers back.
  const before = f.offers.filter((o) => o.agentId === agentId).length;
  expect((await t.request('POST', `/api/v1/agents/${agentId}/reactivate`)).status).toBe(200);
  await until(() => f.offers.filter((o) => o.agentId === agentId).length > before, 10_000, 'offers again');
});

it('with markGone, the drained agent is GONE and refused when it registers again', async () => {
  const { agent, agentId, f } = await busyAgent('gone-host', 'goner');
  expect((await t.request('POST', `/api/v1/agents/${agentId}/drain`, { maxGracePeriodSeconds: 1, markGone: true })).status).toBe(200);
  await until(() => f.states('goner-1').includes('KILLED') && f.states('goner-2').includes('KILLED'), 10_000, 'the tasks KILLED');
  await until(async () => (await agentView(agentId)).status === 'GONE', 10_000, 'the agent GONE');
  expect((await agentView(agentId)).drainState).toBe('DRAINED');
  // The agent tries again with its id: refused for good.
  const again = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'gone-host',
    agentId,
    resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON(),
  });
  closers.push(() => again.close());
  await new Promise<void>((resolve) => again.socket.once('connect', () => resolve()));
  const reply = (await again.socket.emitWithAck('register', {
    hostname: 'gone-host',
    agentId,
    resources: [{ name: 'cpus', value: 4 }],
  })) as Reply;
  expect(reply.ok ? 'registered' : reply.error.code).toBe('AGENT_GONE');
  expect(agent.socket.connected).toBe(false);
});

it('drains an idle agent at once', async () => {
  const idle = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
    hostname: 'idle-host',
    resources: Resources.fromScalars({ cpus: 1, mem: 512 }).toJSON(),
  });
  closers.push(() => idle.close());
  const agentId = await idle.register();
  expect((await t.request('POST', `/api/v1/agents/${agentId}/drain`, {})).body).toMatchObject({ drainState: 'DRAINED' });
});

it('tells a framework with TASK_KILLING_STATE that the kill is under way: KILLING, then KILLED', async () => {
  const { agentId, f } = await busyAgent('killing-host', 'patient', ['TASK_KILLING_STATE']);
  expect((await t.request('POST', `/api/v1/agents/${agentId}/drain`, { maxGracePeriodSeconds: 1 })).status).toBe(200);
  await until(() => f.states('patient-1').includes('KILLED') && f.states('patient-2').includes('KILLED'), 10_000, 'the tasks KILLED');
  for (const id of ['patient-1', 'patient-2']) expect(f.states(id)).toEqual(['STARTING', 'RUNNING', 'KILLING', 'KILLED']);
});
