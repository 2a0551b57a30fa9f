/**
 * What each page reads first, shared by the page (which fetches it on the server, see
 * prefetch.tsx) and its view (which asks for the same queries, so it starts with that data).
 * Filters kept in the URL are read here from the query string the same way on both sides.
 */
import type { Queries } from './queries';
import type { TaskStateName } from '@arbiter/contracts/task-states';

export const LIST_LIMIT = 50;
export const DETAIL_LIMIT = 100;
export const RECENT_CYCLES = 10;
export const SHARE_POINTS = 300;
export const CHART_CYCLES = 200;
/** Points of the share-over-time chart of the allocation history (a step line across the page). */
export const HISTORY_SHARE_POINTS = 600;

type Params = Record<string, string | string[] | undefined>;
export type UrlFilters<K extends string> = Record<K, string>;
const one = (p: Params, k: string) => (typeof p[k] === 'string' ? p[k] : '');
export const fromSearch = <K extends string>(p: Params, names: readonly K[]): UrlFilters<K> =>
  Object.fromEntries(names.map((n) => [n, one(p, n)])) as UrlFilters<K>;

export const TASK_FILTERS = ['state', 'frameworkId', 'agentId', 'reason', 'offset'] as const;
/** The reason that ends a revocable task its agent's QoS controller evicted (oversubscription). */
export const EVICTION_REASON = 'REASON_CONTAINER_PREEMPTED';
export const tasksQuery = (f: UrlFilters<(typeof TASK_FILTERS)[number]>) => ({
  state: (f.state || undefined) as TaskStateName | undefined,
  frameworkId: f.frameworkId || undefined,
  agentId: f.agentId || undefined,
  reason: f.reason || undefined,
  limit: LIST_LIMIT,
  offset: Number(f.offset) || 0,
});

export const AUDIT_FILTERS = ['action', 'actor', 'targetType', 'since', 'offset'] as const;
export const auditQuery = (f: UrlFilters<(typeof AUDIT_FILTERS)[number]>) => {
  const since = f.since ? new Date(f.since) : null;
  return {
    action: f.action || undefined,
    actor: f.actor || undefined,
    targetType: f.targetType || undefined,
    since: since && !Number.isNaN(since.getTime()) ? since.toISOString() : undefined,
    limit: LIST_LIMIT,
    offset: Number(f.offset) || 0,
  };
};

export const RANGES = [
  { key: '15m', label: 'last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'last hour', ms: 3600_000 },
  { key: '6h', label: 'last 6 hours', ms: 6 * 3600_000 },
  { key: '24h', label: 'last 24 hours', ms: 24 * 3600_000 },
  { key: '7d', label: 'last 7 days', ms: 7 * 24 * 3600_000 },
] as const;
export const ALLOCATION_FILTERS = ['range', 'role', 'frameworkId', 'agentId', 'offset', 'kind', 'why'] as const;
/** The allocation history's queries for its filters, its range ending at `now`. */
export function allocationQueries(q: Queries, f: UrlFilters<(typeof ALLOCATION_FILTERS)[number]>, now: number) {
  const range = RANGES.find((r) => r.key === f.range) ?? RANGES[1];
  const from = new Date(now - range.ms).toISOString();
  const kind: 'ROLE' | 'FRAMEWORK' = f.kind === 'FRAMEWORK' ? 'FRAMEWORK' : 'ROLE';
  const filter = { from, role: f.role || undefined, frameworkId: f.frameworkId || undefined, agentId: f.agentId || undefined };
  return {
    range,
    from,
    kind,
    chart: q.cycles({ ...filter, limit: CHART_CYCLES }),
    list: q.cycles({ ...filter, limit: LIST_LIMIT, offset: Number(f.offset) || 0 }),
    shares: q.shares({ kind, from, points: HISTORY_SHARE_POINTS }),
  };
}

/** The first queries of each page. */
export const firstLoad = {
  overview: (q: Queries) => [
    q.cluster(),
    q.cycles({ limit: RECENT_CYCLES }),
    q.frameworkNames(),
    q.shares({ kind: 'ROLE', points: SHARE_POINTS }),
    q.shares({ kind: 'FRAMEWORK', points: SHARE_POINTS }),
  ],
  agents: (q: Queries) => [q.whitelist(), q.agentPages({ sort: 'hostname' })],
  agent: (q: Queries, id: string) => [
    q.agent(id),
    q.tasks({ agentId: id, limit: DETAIL_LIMIT }),
    q.offers({ agentId: id, state: 'OUTSTANDING', limit: DETAIL_LIMIT }),
    q.whitelist(),
    q.frameworkNames(),
    q.reservations({ agentId: id, limit: LIST_LIMIT, offset: 0 }),
  ],
  roles: (q: Queries) => [q.roles()],
  reservations: (q: Queries) => [q.reservations({ limit: LIST_LIMIT, offset: 0 })],
  volumes: (q: Queries) => [q.volumes({ limit: LIST_LIMIT, offset: 0 })],
  maintenance: (q: Queries) => [q.schedule(), q.maintenanceStatus(), q.frameworkNames()],
  frameworks: (q: Queries) => [q.frameworks({ limit: LIST_LIMIT, offset: 0 })],
  framework: (q: Queries, id: string) => [
    q.framework(id),
    q.tasks({ frameworkId: id, limit: DETAIL_LIMIT }),
    q.offers({ frameworkId: id, state: 'OUTSTANDING', limit: DETAIL_LIMIT }),
    q.explain(id),
  ],
  tasks: (q: Queries, p: Params) => [q.frameworkNames(), q.tasks(tasksQuery(fromSearch(p, TASK_FILTERS)))],
  task: (q: Queries, id: string) => [q.task(id), q.frameworkNames()],
  allocations: (q: Queries, p: Params, now: number) => {
    const a = allocationQueries(q, fromSearch(p, ALLOCATION_FILTERS), now);
    return [q.frameworkNames(), a.chart, a.list, a.shares];
  },
  cycle: (q: Queries, id: string) => [q.cycle(id), q.frameworkNames()],
  audit: (q: Queries, p: Params) => [q.audit(auditQuery(fromSearch(p, AUDIT_FILTERS)))],
};
