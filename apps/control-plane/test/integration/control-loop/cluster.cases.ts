import { randomUUID } from 'node:crypto';
import { mockFramework, mockOffer, mockTask } from '@arbiter/test-support/mocks';
import { AgentStatus, DrainState } from '../../../src/agents/agent.entity';
import { FrameworkEntity, FrameworkState } from '../../../src/frameworks/framework.entity';
import { OfferEntity, OutstandingOfferEntity } from '../../../src/offers/offer.entity';
import { TaskEntity, TaskState } from '../../../src/tasks/task.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok, refused } from '../../support/client';
import { objectContaining, stringContaining } from '../../support/matchers';

describe('cluster summary', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  const summary = () => ok(t.client.GET('/api/v1/cluster'));
  const codes = async () => (await summary()).alerts.map((a) => a.code);

  it('says so when no agent is reachable', async () => {
    const r = await summary();
    expect(r).toMatchObject({
      resources: [],
      agents: { total: 0, reachable: 0 },
      activeTasks: 0,
      outstandingOffers: 0,
      lastCycle: null,
    });
    expect(r.alerts).toEqual([
      {
        severity: 'critical',
        code: 'NO_AGENTS',
        message: stringContaining('No agent is reachable'),
        target: { kind: 'cluster', id: null },
      },
    ]);
  });

  it('sums capacity, use, offers and reservations over reachable agents, counts by state, and raises alerts most severe first', async () => {
    await seedAgent(t.cp, { id: 'c1', hostname: 'c-1', resources: 'cpus:8;mem:16384;ports:[31000-32000]' });
    await seedAgent(t.cp, { id: 'c2', hostname: 'c-2', resources: 'cpus:4;mem:8192' });
    await seedAgent(t.cp, { id: 'c3', hostname: 'c-3', resources: 'cpus:100;mem:100', status: AgentStatus.UNREACHABLE });
    await seedAgent(t.cp, { id: 'c4', hostname: 'c-4', resources: 'cpus:2;mem:1024', activated: false });
    await t.cp.dataSource.getRepository('agents').update({ id: 'c4' }, { drainState: DrainState.DRAINING });
    const now = new Date();
    const fw = (id: string, state: FrameworkState, roles: string[]) => mockFramework({ id, state, roles, registeredAt: now });
    await t.cp.dataSource
      .getRepository(FrameworkEntity)
      .save([
        fw('f1', FrameworkState.ACTIVE, ['eng/ml']),
        fw('f2', FrameworkState.DISCONNECTED, ['ops']),
        fw('f3', FrameworkState.COMPLETED, ['ops']),
      ]);
    const task = (taskId: string, agentId: string, state: TaskState, cpus: number) =>
      mockTask({ taskId, frameworkId: 'f1', agentId, role: 'eng/ml', state, cpus, mem: 512, createdAt: now });
    await t.cp.dataSource
      .getRepository(TaskEntity)
      .save([
        task('t1', 'c1', TaskState.RUNNING, 1.5),
        task('t2', 'c2', TaskState.STAGING, 0.25),
        task('t3', 'c1', TaskState.FINISHED, 3),
        task('t4', 'c3', TaskState.RUNNING, 50),
      ]);
    const outstanding = randomUUID();
    await t.cp.dataSource.getRepository(OutstandingOfferEntity).save({ offerId: outstanding });
    await t.cp.dataSource
      .getRepository(OfferEntity)
      .save(mockOffer({ id: outstanding, frameworkId: 'f1', agentId: 'c2', role: 'eng/ml', createdAt: now }));
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'c1', role: 'eng', resources: 'cpus:2;mem:2048' } }), 201);
    await ok(t.client.PUT('/api/v1/quota', { body: { quotas: [{ role: 'eng', guarantees: 'cpus:20' }], force: true } }));
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['c-1', 'c-4'] } }));
    await ok(
      t.client.PUT('/api/v1/maintenance/schedule', {
        body: { windows: [{ machines: [{ hostname: 'c-2' }], unavailability: { start: '2026-01-01T00:00:00Z', durationSeconds: 60 } }] },
      }),
    );
    await ok(t.client.POST('/api/v1/maintenance/start', { body: { machines: [{ hostname: 'c-2' }] } }));

    const r = await summary();
    // Reachable: c1, c2, c4 (cpus 8 + 4 + 2, mem 16384 + 8192 + 1024); c3's task does not count.
    expect(r.resources).toEqual([
      { name: 'cpus', total: 14, used: 1.75, offered: 1, reserved: 2 },
      { name: 'mem', total: 25600, used: 1024, offered: 0, reserved: 2048 },
    ]);
    expect(r.agents).toEqual({ total: 4, reachable: 3, unreachable: 1, gone: 0, deactivated: 1, draining: 1, down: 1 });
    expect(r.frameworks).toEqual({ active: 1, disconnected: 1, completed: 1 });
    expect(r.tasks).toEqual({ RUNNING: 2, STAGING: 1, FINISHED: 1 });
    expect(r.activeTasks).toBe(3);

    const alerts = r.alerts;
    const severities = alerts.map((a) => ['critical', 'warning', 'info'].indexOf(a.severity));
    expect(severities).toEqual([...severities].sort((a, b) => a - b));
    const find = (code: string) => alerts.filter((a) => a.code === code);
    expect(find('AGENT_UNREACHABLE')).toEqual([
      { severity: 'critical', code: 'AGENT_UNREACHABLE', message: stringContaining('c-3'), target: { kind: 'agent', id: 'c3' } },
    ]);
    // Seeded agents never connected: the master has no socket for them.
    expect(
      find('AGENT_DISCONNECTED')
        .map((a) => a.target.id)
        .sort(),
    ).toEqual(['c1', 'c2', 'c4']);
    expect(find('AGENT_DRAINING').map((a) => a.target.id)).toEqual(['c4']);
    expect(find('AGENT_DEACTIVATED')).toEqual([]);
    expect(find('MACHINE_DOWN')).toEqual([objectContaining({ severity: 'warning', target: { kind: 'agent', id: 'c2' } })]);
    expect(find('FRAMEWORK_DISCONNECTED')).toEqual([
      objectContaining({ message: stringContaining('fw-f2'), target: { kind: 'framework', id: 'f2' } }),
    ]);
    expect(find('WHITELIST_EXCLUDES')).toEqual([objectContaining({ message: stringContaining('leaves out 1 of 3') })]);
    expect(find('QUOTA_OVER_CAPACITY')).toEqual([objectContaining({ message: stringContaining('cpus 20 but reachable agents have 14') })]);
    // eng holds 1.75 (tasks) + 1 (offer) of its 20 cpus on reachable agents while f1 (eng/ml) wants offers.
    expect(find('QUOTA_GUARANTEE_UNMET')).toEqual([
      objectContaining({ message: stringContaining('cpus 2.75 of 20'), target: { kind: 'role', id: 'eng' } }),
    ]);
    expect(find('NO_AGENTS')).toEqual([]);
  });

  it('calls a whitelist that leaves out every reachable agent critical', async () => {
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['elsewhere'] } }));
    expect(await codes()).toContain('WHITELIST_EMPTY');
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: null } }));
    expect(await codes()).not.toContain('WHITELIST_EMPTY');
  });

  it('sums up alerts of one code beyond twenty in one', async () => {
    for (let i = 0; i < 23; i++) await seedAgent(t.cp, { id: `lost-${i}`, status: AgentStatus.UNREACHABLE });
    const alerts = (await summary()).alerts;
    expect(alerts.filter((a) => a.code === 'AGENT_UNREACHABLE')).toHaveLength(21);
    expect(alerts.filter((a) => a.code === 'AGENT_UNREACHABLE').at(-1)?.message).toBe('… and 4 more AGENT_UNREACHABLE alerts.');
  });

  it('needs a token', async () => {
    const error = await refused(t.clientAs(null).GET('/api/v1/cluster'), 401);
    expect(error.code).toBe('AUTH_TOKEN_MISSING');
  });
});

describe('whoami', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  it('names the principal behind a token and refuses an unknown one', async () => {
    expect(await ok(t.client.GET('/api/v1/whoami'))).toEqual({ principal: 'admin', kind: 'ADMIN' });
    const service = await t.cp.issueServiceToken('local-agent');
    expect(await ok(t.clientAs(service).GET('/api/v1/whoami'))).toEqual({ principal: 'local-agent', kind: 'AGENT' });
    const bad = await refused(t.clientAs('arb_nope').GET('/api/v1/whoami'), 401);
    expect(bad.code).toBe('AUTH_TOKEN_INVALID');
  });
});
