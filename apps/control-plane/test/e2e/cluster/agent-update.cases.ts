/**
 * An agent's resources change while it runs (Mesos's UPDATE_SLAVE): the control plane records
 * them, rescinds the agent's offers and offers the new total at once, without a re-registration;
 * oversubscribed (revocable) resources go only to frameworks that take them; a total that cannot
 * hold the agent's reservations is refused. The CLI agent re-reads its --resources-file on SIGHUP.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '@arbiter/agent';
import { Resources } from '@arbiter/allocator';
import { PROTOCOL_ERRORS, type ResourceEntry } from '@arbiter/contracts';
import pino from 'pino';
import { AgentSessions } from '../../../src/agent-lifecycle/agent-sessions.handler';
import { closeStarted, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { AgentProcess } from '../../support/process';
import { Recorder } from '../../support/recorder';
import { until } from '../../support/until';

let t: TestControlPlane;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-agent-update-test-'));
fs.chmodSync(dir, 0o711);
const closers: Array<() => unknown> = [];

beforeAll(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })), STARTUP_TIMEOUT_MS);
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  await closeStarted(t);
  fs.rmSync(dir, { recursive: true, force: true });
}, STARTUP_TIMEOUT_MS);

const startAgent = async (hostname: string, resources: Record<string, number>) => {
  const agent = new Agent({
    master: t.cp.url,
    token: await t.cp.issueServiceToken(`${hostname}-principal`),
    hostname,
    resources: Resources.fromScalars(resources).toJSON(),
    attributes: { rack: 'r1' },
    workDir: path.join(dir, hostname),
    logger: pino({ level: 'silent' }),
  });
  closers.push(() => agent.stop());
  agent.start();
  await until(() => agent.id !== undefined);
  return agent;
};
const framework = async (name: string, capabilities: Array<'REVOCABLE_RESOURCES'> = []) => {
  const r = new Recorder(t, { name, roles: [name], capabilities });
  closers.push(() => r.s.close());
  await r.s.start();
  return r;
};
const agentView = (id: string) => ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
/** An agent's total as the API shows it. */
const totalOf = async (id: string) => Resources.of((await agentView(id)).resources as ResourceEntry[]);
const offered = (r: Recorder, agentId: string, name: string) =>
  r.offers.filter((o) => o.agentId === agentId).map((o) => Resources.of(o.resources).get(name));

it('offers an agent new total at once, with its offers rescinded and no new registration; revocable resources only to frameworks that take them', async () => {
  const agent = await startAgent('growing-host', { cpus: 2, mem: 1024 });
  const agentId = agent.id ?? '';
  const plain = await framework('plain');
  await until(() => offered(plain, agentId, 'cpus').includes(2), 10_000, 'the first offer');
  const first = plain.offers.find((o) => o.agentId === agentId);
  const registrations = jest.spyOn(t.cp.app.get(AgentSessions), 'register');

  await agent.updateResources([...Resources.fromScalars({ cpus: 6, mem: 4096 }).toJSON(), { name: 'cpus', value: 3, revocable: true }], {
    rack: 'r2',
  });
  await until(() => plain.rescinded.includes(first?.id ?? ''), 10_000, 'the old offer rescinded');
  await until(() => offered(plain, agentId, 'cpus').includes(6), 10_000, 'the new total offered');
  expect(registrations).not.toHaveBeenCalled();
  // The framework without REVOCABLE_RESOURCES is never offered the oversubscribed cpus.
  const latest = plain.offers.filter((o) => o.agentId === agentId).at(-1);
  expect(
    Resources.of(latest?.resources ?? [])
      .revocable()
      .isEmpty(),
  ).toBe(true);

  expect((await totalOf(agentId)).nonRevocable().get('cpus')).toBe(6);
  expect((await totalOf(agentId)).revocable().get('cpus')).toBe(3);
  expect((await agentView(agentId)).attributes).toEqual({ rack: 'r2' });
  const audit = await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'agent.update', targetId: agentId } } }));
  expect(audit.items).toHaveLength(1);
  expect(audit.items[0].actor).toBe('growing-host-principal');

  // A framework that takes revocable resources is offered them (the plain one holds the rest).
  plain.s.close();
  const eager = await framework('eager', ['REVOCABLE_RESOURCES']);
  await until(
    () => eager.offers.some((o) => o.agentId === agentId && !Resources.of(o.resources).revocable().isEmpty()),
    10_000,
    'revocable',
  );
  const withRevocable = eager.offers.find((o) => o.agentId === agentId && !Resources.of(o.resources).revocable().isEmpty());
  expect(
    Resources.of(withRevocable?.resources ?? [])
      .revocable()
      .get('cpus'),
  ).toBe(3);
});

it('refuses a total that cannot hold the agent reservations, and changes nothing', async () => {
  const agent = await startAgent('reserved-host', { cpus: 4, mem: 2048 });
  const agentId = agent.id ?? '';
  await ok(
    t.client.POST('/api/v1/reservations', {
      body: { agentId, role: 'team-a', resources: Resources.fromScalars({ cpus: 3 }).toJSON() },
    }),
    201,
  );
  const refused = await agent.updateResources(Resources.fromScalars({ cpus: 2, mem: 2048 }).toJSON()).catch((err: unknown) => err);
  expect((refused as { code?: string }).code).toBe(PROTOCOL_ERRORS.RESOURCES_BELOW_RESERVATIONS);
  expect((await totalOf(agentId)).get('cpus')).toBe(4);
  const audit = await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'agent.update', targetId: agentId } } }));
  expect(audit.items).toHaveLength(0);
});

it(
  're-reads --resources-file on SIGHUP: the control plane has the new total without the agent registering again',
  async () => {
    const file = path.join(dir, 'resources.txt');
    fs.writeFileSync(file, 'cpus:1;mem:512\n');
    const proc = new AgentProcess('sighup-host', path.join(dir, 'sighup'), file, '--resources-file');
    closers.push(() => proc.stop());
    proc.start(t.cp.url, await t.cp.issueServiceToken('sighup-principal'));
    const id = async () => {
      const page = await ok(t.client.GET('/api/v1/agents', { params: { query: { hostname: 'sighup-host' } } }));
      return page.items.find((a) => a.hostname === 'sighup-host')?.id;
    };
    // The process compiles the CLI's sources as it starts: seconds of CPU a loaded machine
    // stretches far. A bound about the machine, as for a control plane's process (60 s).
    await until(async () => (await id()) !== undefined, 60_000, 'the agent registered');
    const agentId = (await id()) ?? '';
    fs.writeFileSync(file, 'cpus:3;mem:2048;ports:[31000-31009]\n');
    proc.child?.kill('SIGHUP');
    await until(async () => (await totalOf(agentId)).get('cpus') === 3, 'the new total');
    const total = await totalOf(agentId);
    expect(total.get('mem')).toBe(2048);
    expect(total.toString()).toContain('ports:[31000-31009]');
    expect(proc.log.match(/"msg":"registered"/g)).toHaveLength(1);
    expect(proc.child?.exitCode).toBeNull();
  },
  STARTUP_TIMEOUT_MS,
);
