/**
 * A large cluster's rows for benchmarks (`arbiter bench api`), written straight into a database:
 * agents, frameworks with live tasks, ended tasks and recorded allocation cycles over a period,
 * as a control plane that has run for that long would have them. The database is migrated first.
 */
import { Client } from 'pg';
import { dataSourceFor } from './database.options';
import { migrate } from './database.migrations';

export interface LargeCluster {
  agents: number;
  frameworks: number;
  /** Roles the frameworks are spread over. */
  roles: string[];
  /** Days of history: one ended task a minute, one recorded cycle every 10 s (with each role's share). */
  historyDays: number;
}

export async function seedLargeCluster(databaseUrl: string, c: LargeCluster): Promise<void> {
  // Only the migrations run on it: no entity is needed.
  const ds = dataSourceFor(databaseUrl, []);
  await ds.initialize();
  try {
    await migrate(ds);
  } finally {
    await ds.destroy();
  }
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO agents (id, hostname, attributes, resources, status, activated, first_seen_at, last_seen_at)
       SELECT 'agent-' || g, 'node-' || lpad(g::text, 5, '0') || '.rack-' || (g / 40),
              jsonb_build_object('rack', 'rack-' || (g / 40)),
              '[{"name":"cpus","value":16},{"name":"mem","value":65536},{"name":"disk","value":500000},{"name":"ports","ranges":[[31000,32000]]}]',
              'REACHABLE', true, now() - interval '30 days', now()
         FROM generate_series(1, $1) g`,
      [c.agents],
    );
    await db.query(
      `INSERT INTO frameworks (id, name, roles, capabilities, failover_timeout_seconds, state, suppressed_roles, registered_at, principal)
       SELECT 'framework-' || g, 'framework-' || g, ARRAY[($2::text[])[1 + g % cardinality($2::text[])]], '{}', 604800, 'ACTIVE', '{}',
              now() - interval '1 day' * $3, 'admin'
         FROM generate_series(1, $1) g`,
      [c.frameworks, c.roles, c.historyDays + 1],
    );
    // Live tasks: five an agent, at most 20,000; ended ones: one a minute over the history.
    const task = (prefix: string, state: string, count: number, age: string, resources: string) =>
      db.query(
        `INSERT INTO tasks (task_id, framework_id, agent_id, name, role, resources, state, created_at, updated_at)
         SELECT '${prefix}-' || g, 'framework-' || (1 + g % $2), 'agent-' || (1 + g % $3), '${prefix}',
                ($4::text[])[1 + (g % $2) % cardinality($4::text[])], '${resources}', '${state}', ${age}, ${age}
           FROM generate_series(1, $1) g`,
        [count, c.frameworks, c.agents, c.roles],
      );
    await task(
      'live',
      'RUNNING',
      Math.min(5 * c.agents, 20_000),
      "now() - interval '1 hour'",
      '[{"name":"cpus","value":1},{"name":"mem","value":2048}]',
    );
    await task(
      'done',
      'FINISHED',
      c.historyDays * 24 * 60,
      "now() - g * interval '1 minute'",
      '[{"name":"cpus","value":2},{"name":"mem","value":4096}]',
    );
    await db.query(
      `INSERT INTO allocation_cycles (started_at, duration_ms, offer_count, trace)
       SELECT now() - g * interval '10 s', 5 + random() * 20, 1 + (g % 7), '[]' FROM generate_series(1, $1) g`,
      [c.historyDays * 24 * 360],
    );
    await db.query(
      `INSERT INTO allocation_shares (cycle_id, client_kind, client, role, dominant_share, shares)
       SELECT cy.id, 'ROLE', r, NULL, random(), jsonb_build_object('cpus', random(), 'mem', random())
         FROM allocation_cycles cy CROSS JOIN unnest($1::text[]) r`,
      [c.roles],
    );
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}
