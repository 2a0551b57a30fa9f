import { randomUUID } from 'node:crypto';
import { AgentStatus, DrainState } from '../src/agents/agent.entity';
import { FrameworkEntity, FrameworkState } from '../src/frameworks/framework.entity';
import { OfferEntity, OfferState, OutstandingOfferEntity } from '../src/offers/offer.entity';
import { TaskEntity, TaskState } from '../src/tasks/task.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from './support/app';

describe('cluster summary', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  const codes = async () => ((await t.api('GET', '/api/v1/cluster')).body.alerts as Array<{ code: string }>).map((a) => a.code);

  it('says so when no agent is reachable', async () => {
    const r = await t.api('GET', '/api/v1/cluster');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      resources: [],
      agents: { total: 0, reachable: 0 },
      activeTasks: 0,
      outstandingOffers: 0,
      lastCycle: null,
    });
    expect(r.body.alerts).toEqual([
      {
        severity: 'critical',
        code: 'NO_AGENTS',
        message: expect.stringContaining('No agent is reachable'),
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
    const fw = (id: string, state: FrameworkState, roles: string[]) => ({
      id,
      name: `fw-${id}`,
      principal: null,
      user: null,
      roles,
      capabilities: [],
      failoverTimeoutSeconds: 60,
      hostname: null,
      webuiUrl: null,
      state,
      suppressedRoles: [],
      registeredAt: now,
      disconnectedAt: state === FrameworkState.DISCONNECTED ? now : null,
      completedAt: state === FrameworkState.COMPLETED ? now : null,
    });
    await t.cp.dataSource
      .getRepository(FrameworkEntity)
      .save([
        fw('f1', FrameworkState.ACTIVE, ['eng/ml']),
        fw('f2', FrameworkState.DISCONNECTED, ['ops']),
        fw('f3', FrameworkState.COMPLETED, ['ops']),
      ]);
    const task = (taskId: string, agentId: string, state: TaskState, cpus: number) => ({
      taskId,
      frameworkId: 'f1',
      agentId,
      name: taskId,
      role: 'eng/ml',
      resources: [
        { name: 'cpus', value: cpus },
        { name: 'mem', value: 512 },
      ],
      command: null,
      state,
      createdAt: now,
      updatedAt: now,
    });
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
    await t.cp.dataSource.getRepository(OfferEntity).save({
      id: outstanding,
      frameworkId: 'f1',
      agentId: 'c2',
      role: 'eng/ml',
      resources: [{ name: 'cpus', value: 1 }],
      state: OfferState.OUTSTANDING,
      cycleId: null,
      createdAt: now,
      expiresAt: null,
      closedAt: null,
    });
    expect((await t.api('POST', '/api/v1/reservations', { agentId: 'c1', role: 'eng', resources: 'cpus:2;mem:2048' })).status).toBe(201);
    expect((await t.api('PUT', '/api/v1/quota', { quotas: [{ role: 'eng', guarantees: 'cpus:20' }], force: true })).status).toBe(200);
    await t.api('PUT', '/api/v1/whitelist', { hostnames: ['c-1', 'c-4'] });
    await t.api('PUT', '/api/v1/maintenance/schedule', {
      windows: [{ machines: [{ hostname: 'c-2' }], unavailability: { start: '2026-01-01T00:00:00Z', durationSeconds: 60 } }],
    });
    await t.api('POST', '/api/v1/maintenance/start', { machines: [{ hostname: 'c-2' }] });

    const r = await t.api('GET', '/api/v1/cluster');
    expect(r.status).toBe(200);
    // Reachable: c1, c2, c4 (cpus 8 + 4 + 2, mem 16384 + 8192 + 1024); c3's task does not count.
    expect(r.body.resources).toEqual([
      { name: 'cpus', total: 14, used: 1.75, offered: 1, reserved: 2 },
      { name: 'mem', total: 25600, used: 1024, offered: 0, reserved: 2048 },
    ]);
    expect(r.body.agents).toEqual({ total: 4, reachable: 3, unreachable: 1, gone: 0, deactivated: 1, draining: 1, down: 1 });
    expect(r.body.frameworks).toEqual({ active: 1, disconnected: 1, completed: 1 });
    expect(r.body.tasks).toEqual({ RUNNING: 2, STAGING: 1, FINISHED: 1 });
    expect(r.body.activeTasks).toBe(3);

    const alerts: Array<{ severity: string; code: string; message: string; target: { kind: string; id: string | null } }> = r.body.alerts;
    const severities = alerts.map((a) => ['critical', 'warning', 'info'].indexOf(a.severity));
    expect(severities).toEqual([...severities].sort((a, b) => a - b));
    const find = (code: string) => alerts.filter((a) => a.code === code);
    expect(find('AGENT_UNREACHABLE')).toEqual([
      { severity: 'critical', code: 'AGENT_UNREACHABLE', message: expect.stringContaining('c-3'), target: { kind: 'agent', id: 'c3' } },
    ]);
    // Seeded agents never connected: the master has no socket for them.
    expect(
      find('AGENT_DISCONNECTED')
        .map((a) => a.target.id)
        .sort(),
    ).toEqual(['c1', 'c2', 'c4']);
    expect(find('AGENT_DRAINING').map((a) => a.target.id)).toEqual(['c4']);
    expect(find('AGENT_DEACTIVATED')).toEqual([]);
    expect(find('MACHINE_DOWN')).toEqual([expect.objectContaining({ severity: 'warning', target: { kind: 'agent', id: 'c2' } })]);
    expect(find('FRAMEWORK_DISCONNECTED')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('fw-f2'), target: { kind: 'framework', id: 'f2' } }),
    ]);
    expect(find('WHITELIST_EXCLUDES')).toEqual([expect.objectContaining({ message: expect.stringContaining('leaves out 1 of 3') })]);
    expect(find('QUOTA_OVER_CAPACITY')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('cpus 20 but reachable agents have 14') }),
    ]);
    // eng holds 1.75 (tasks) + 1 (offer) of its 20 cpus on reachable agents while f1 (eng/ml) wants offers.
    expect(find('QUOTA_GUARANTEE_UNMET')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('cpus 2.75 of 20'), target: { kind: 'role', id: 'eng' } }),
    ]);
    expect(find('NO_AGENTS')).toEqual([]);
  });

  it('calls a whitelist that leaves out every reachable agent critical', async () => {
    await t.api('PUT', '/api/v1/whitelist', { hostnames: ['elsewhere'] });
    expect(await codes()).toContain('WHITELIST_EMPTY');
    await t.api('PUT', '/api/v1/whitelist', { hostnames: null });
    expect(await codes()).not.toContain('WHITELIST_EMPTY');
  });

  it('sums up alerts of one code beyond twenty in one', async () => {
    for (let i = 0; i < 23; i++) await seedAgent(t.cp, { id: `lost-${i}`, status: AgentStatus.UNREACHABLE });
    const alerts: Array<{ code: string; message: string }> = (await t.api('GET', '/api/v1/cluster')).body.alerts;
    expect(alerts.filter((a) => a.code === 'AGENT_UNREACHABLE')).toHaveLength(21);
    expect(alerts.filter((a) => a.code === 'AGENT_UNREACHABLE').at(-1)!.message).toBe('… and 4 more AGENT_UNREACHABLE alerts.');
  });

  it('needs a token', async () => {
    const r = await t.api('GET', '/api/v1/cluster', undefined, { token: null });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('AUTH_TOKEN_MISSING');
  });
});

describe('whoami', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());

  it('names the principal behind a token and refuses an unknown one', async () => {
    expect((await t.api('GET', '/api/v1/whoami')).body).toEqual({ principal: 'admin' });
    const service = await t.cp.issueServiceToken('local-agent');
    expect((await t.api('GET', '/api/v1/whoami', undefined, { token: service })).body).toEqual({ principal: 'local-agent' });
    const bad = await t.api('GET', '/api/v1/whoami', undefined, { token: 'arb_nope' });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('AUTH_TOKEN_INVALID');
  });
});
