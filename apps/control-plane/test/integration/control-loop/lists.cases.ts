/**
 * Lists of the tables that grow with the cluster's history (tasks, offers, cycles) count their
 * matches only up to offset + COUNT_AHEAD, and say when they stopped.
 */
import { COUNT_AHEAD } from '../../../src/common/pagination.dto';
import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';

describe('lists of the history tables', () => {
  let t: TestControlPlane;
  const many = COUNT_AHEAD + 1;

  beforeAll(async () => {
    t = await startTestControlPlane({ config: { allocationInterval: 3600 } });
    await seedAgent(t.cp, { id: 'ag' });
    const db = t.cp.dataSource;
    await db.query(
      `INSERT INTO frameworks (id, name, roles, capabilities, failover_timeout_seconds, state, suppressed_roles, registered_at) VALUES ('fw', 'fw', '{r}', '{}', 0, 'COMPLETED', '{}', now())`,
    );
    await db.query(
      `INSERT INTO tasks (task_id, framework_id, agent_id, name, role, resources, state, created_at, updated_at)
       SELECT 't' || g, 'fw', 'ag', 'x', 'r', '[]', CASE WHEN g <= 3 THEN 'RUNNING' ELSE 'FINISHED' END::task_state, now() - g * interval '1 s', now() FROM generate_series(1, $1) g`,
      [many],
    );
    await db.query(
      `INSERT INTO allocation_cycles (started_at, duration_ms, offer_count, trace) SELECT now() - g * interval '1 s', 1, 1, '[]' FROM generate_series(1, $1) g`,
      [many],
    );
    await db.query(
      `INSERT INTO offers (framework_id, agent_id, role, resources, state, created_at, closed_at)
       SELECT 'fw', 'ag', 'r', '[]', CASE WHEN g <= 2 THEN 'OUTSTANDING' ELSE 'DECLINED' END::offer_state, now() - g * interval '1 s', CASE WHEN g > 2 THEN now() END FROM generate_series(1, $1) g`,
      [many],
    );
    await db.query(`INSERT INTO outstanding_offers (offer_id) SELECT id FROM offers WHERE state = 'OUTSTANDING'`);
  }, 60_000);
  afterAll(() => t.close());

  it.each(['/api/v1/tasks', '/api/v1/offers', '/api/v1/allocations'] as const)(
    '%s counts up to offset + COUNT_AHEAD and says when it stopped',
    async (list) => {
      const first = await ok(t.client.GET(list, { params: { query: { limit: 5 } } }));
      expect(first).toMatchObject({ total: COUNT_AHEAD, totalCapped: true, limit: 5, offset: 0 });
      expect(first.items).toHaveLength(5);
      const further = await ok(t.client.GET(list, { params: { query: { limit: 5, offset: many - 2 } } }));
      expect(further).toMatchObject({ total: many, totalCapped: false, offset: many - 2 });
      expect(further.items).toHaveLength(2);
    },
  );

  it('lists newest first and counts filtered lists exactly', async () => {
    const tasks = await ok(t.client.GET('/api/v1/tasks', { params: { query: { limit: 3 } } }));
    expect(tasks.items.map((x) => x.taskId)).toEqual(['t1', 't2', 't3']);
    expect(await ok(t.client.GET('/api/v1/tasks', { params: { query: { state: 'RUNNING' } } }))).toMatchObject({
      total: 3,
      totalCapped: false,
    });
    expect(await ok(t.client.GET('/api/v1/offers', { params: { query: { state: 'OUTSTANDING' } } }))).toMatchObject({
      total: 2,
      totalCapped: false,
    });
    expect(await ok(t.client.GET('/api/v1/tasks', { params: { query: { frameworkId: 'nobody' } } }))).toMatchObject({
      items: [],
      total: 0,
      totalCapped: false,
    });
  });
});
