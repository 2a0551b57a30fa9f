import { mockFramework, mockTask } from '@arbiter/test-support/mocks';
import { TaskEntity } from '../../../src/tasks/task.entity';
import { FrameworkEntity } from '../../../src/frameworks/framework.entity';
import { AgentStatus } from '../../../src/agents/agent.entity';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { stringContaining } from '../../support/matchers';
import { refusedWithoutChange } from '../../support/unchanged';

const reservation = (id: string) => ({ params: { path: { id } } });

describe('reservations API', () => {
  let t: TestControlPlane;
  beforeAll(async () => {
    t = await startTestControlPlane();
    await seedAgent(t.cp, { id: 'a1', hostname: 'node-1', resources: 'cpus:8;mem:16384;ports:[31000-32000]' });
    await seedAgent(t.cp, { id: 'gone', status: AgentStatus.GONE });
  });
  afterAll(() => t.close());
  const reads = ['/api/v1/reservations', '/api/v1/roles'];

  it('reserves free resources given as text or JSON, lists, gets and removes them', async () => {
    const r = await ok(
      t.client.POST('/api/v1/reservations', {
        body: { agentId: 'a1', role: 'eng', resources: 'cpus:2;mem:4096', labels: { team: 'ml' } },
      }),
      201,
    );
    expect(r).toMatchObject({
      agentId: 'a1',
      role: 'eng',
      resourcesText: 'cpus(eng):2;mem(eng):4096',
      labels: { team: 'ml' },
      principal: 'admin',
    });
    const json = await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'a1', role: 'ops', resources: { cpus: 1 } } }), 201);
    expect(json.resourcesText).toBe('cpus(ops):1');
    expect((await ok(t.client.GET('/api/v1/reservations', { params: { query: { role: 'eng' } } }))).items.map((x) => x.id)).toEqual([r.id]);
    expect((await ok(t.client.GET('/api/v1/reservations/{id}', reservation(r.id)))).id).toBe(r.id);
    expect((await ok(t.client.GET('/api/v1/roles'))).find((x) => x.path === 'eng')?.reserved).toEqual({
      cpus: 2,
      mem: 4096,
    });
    await ok(t.client.DELETE('/api/v1/reservations/{id}', reservation(json.id)), 204);
    const audit = (await ok(t.client.GET('/api/v1/audit', { params: { query: { targetType: 'reservation' } } }))).items.map(
      (e) => e.action,
    );
    expect(audit).toEqual(['reservation.remove', 'reservation.create', 'reservation.create']);
  });

  it('reserves only what is free: not already reserved, not used by live tasks', async () => {
    // 8 cpus: 2 reserved for eng above; a task uses 3 more.
    await t.cp.dataSource
      .getRepository(FrameworkEntity)
      .save(mockFramework({ id: 'fw', name: 'fw', roles: ['eng'], failoverTimeoutSeconds: 0 }));
    await t.cp.dataSource
      .getRepository(TaskEntity)
      .save(mockTask({ taskId: 'busy', frameworkId: 'fw', agentId: 'a1', role: 'other', resources: [{ name: 'cpus', value: 3 }] }));
    const r = await refusedWithoutChange(t, reads, () =>
      t.client.POST('/api/v1/reservations', { body: { agentId: 'a1', role: 'ops', resources: 'cpus:4' } }),
    );
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'RESERVATION_INSUFFICIENT_RESOURCES',
      details: { requested: 'cpus:4', free: stringContaining('cpus:3') },
    });
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'a1', role: 'ops', resources: 'cpus:3' } }), 201);
  });

  it('reserves for every role weights and quota accept (one role rule): a@b+c was a 500', async () => {
    await seedAgent(t.cp, { id: 'roles', resources: 'cpus:4;mem:1024' });
    await ok(t.client.PUT('/api/v1/weights', { body: { weights: [{ role: 'a@b+c', weight: 2 }] } }));
    const r = await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'roles', role: 'a@b+c', resources: 'cpus:1' } }), 201);
    expect(r.resourcesText).toBe('cpus(a@b+c):1');
  });

  it('lets exactly one of two concurrent reservations take the last free cpus', async () => {
    await seedAgent(t.cp, { id: 'race', resources: 'cpus:4;mem:1024' });
    const results = await Promise.all(
      [1, 2].map(() => t.client.POST('/api/v1/reservations', { body: { agentId: 'race', role: 'eng', resources: 'cpus:3' } })),
    );
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409]);
    expect((await ok(t.client.GET('/api/v1/reservations', { params: { query: { agentId: 'race' } } }))).total).toBe(1);
  });

  it('refuses to unreserve while the role uses the reserved resources', async () => {
    await seedAgent(t.cp, { id: 'used', resources: 'cpus:4;mem:1024' });
    const res = await ok(t.client.POST('/api/v1/reservations', { body: { agentId: 'used', role: 'eng', resources: 'cpus:2' } }), 201);
    await t.cp.dataSource.getRepository(TaskEntity).save(
      mockTask({
        taskId: 'on-reserved',
        frameworkId: 'fw',
        agentId: 'used',
        name: 'x',
        role: 'eng',
        resources: [{ name: 'cpus', value: 1, reservation: 'eng' }],
      }),
    );
    const r = await refusedWithoutChange(t, reads, () => t.client.DELETE('/api/v1/reservations/{id}', reservation(res.id)));
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('RESERVATION_IN_USE');
    expect(r.body.message).toMatch(/uses cpus\(eng\):1/);
  });

  it.each([
    [{ agentId: 'nope', role: 'eng', resources: 'cpus:1' }, 404, 'AGENT_NOT_FOUND'],
    [{ agentId: 'gone', role: 'eng', resources: 'cpus:1' }, 409, 'AGENT_GONE'],
    [{ agentId: 'a1', role: '*', resources: 'cpus:1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'a:b', resources: 'cpus:1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: '-a', resources: 'cpus:1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'e\u0000ng', resources: 'cpus:1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:abc' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:-1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus(eng):1' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: '' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:1e15' }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:100' }, 409, 'RESERVATION_INSUFFICIENT_RESOURCES'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:1', labels: { team: 7 } }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 'a1', role: 'eng', resources: 'cpus:1', extra: 1 }, 400, 'VALIDATION_FAILED'],
    [{ agentId: 42, role: 'eng', resources: 'cpus:1' }, 400, 'VALIDATION_FAILED'],
  ])('refuses %j with %i %s and changes nothing', async (body, status, code) => {
    const r = await refusedWithoutChange(t, reads, () => t.request('POST', '/api/v1/reservations', body));
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
  });

  it.each(['not-a-uuid', '00000000-0000-4000-8000-000000000000'])('answers RESERVATION_NOT_FOUND for %s', async (id) => {
    const r = await refusedWithoutChange(t, reads, () => t.client.DELETE('/api/v1/reservations/{id}', reservation(id)));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('RESERVATION_NOT_FOUND');
  });
});
