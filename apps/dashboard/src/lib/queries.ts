/**
 * Every read the pages make, as TanStack Query options built on an API client: the browser's
 * (through this dashboard's /api/v1) or the server's (straight to the control plane, for the
 * data a page is first rendered with; see prefetch.tsx). One place for the query keys, so that
 * the server's prefetched data is what the page asks for, and live events invalidate exactly
 * what they change.
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Client } from 'openapi-fetch';
import type { operations, paths } from '@arbiter/contracts';
import { api, call } from './api';

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;
export type AgentQuery = Omit<NonNullable<operations['Agents_list']['parameters']['query']>, 'limit' | 'offset'>;

export const keys = {
  cluster: ['cluster'] as const,
  agents: ['agents'] as const,
  frameworks: ['frameworks'] as const,
  tasks: ['tasks'] as const,
  executors: ['executors'] as const,
  offers: ['offers'] as const,
  roles: ['roles'] as const,
  reservations: ['reservations'] as const,
  volumes: ['volumes'] as const,
  maintenance: ['maintenance'] as const,
  whitelist: ['whitelist'] as const,
  cycles: ['cycles'] as const,
  shares: ['shares'] as const,
  audit: ['audit'] as const,
};

/** Agents are read in pages of this many as the table scrolls. */
export const AGENT_PAGE = 200;

export function makeQueries(c: Client<paths>) {
  return {
    cluster: () => queryOptions({ queryKey: keys.cluster, queryFn: () => call(c.GET('/api/v1/cluster')) }),
    agentPages: (query: AgentQuery) =>
      infiniteQueryOptions({
        queryKey: [...keys.agents, 'list', query],
        initialPageParam: 0,
        queryFn: ({ pageParam }) =>
          call(c.GET('/api/v1/agents', { params: { query: { ...query, limit: AGENT_PAGE, offset: pageParam } } })),
        getNextPageParam: (last) => (last.offset + last.items.length < last.total ? last.offset + last.items.length : undefined),
      }),
    agentSearch: (hostname: string) =>
      queryOptions({
        queryKey: [...keys.agents, 'search', hostname],
        queryFn: () =>
          call(c.GET('/api/v1/agents', { params: { query: { hostname: hostname || undefined, status: 'REACHABLE', limit: 20 } } })),
      }),
    agent: (id: string) =>
      queryOptions({
        queryKey: [...keys.agents, 'one', id],
        queryFn: () => call(c.GET('/api/v1/agents/{id}', { params: { path: { id } } })),
      }),
    frameworks: (query: Query<'/api/v1/frameworks'> = {}) =>
      queryOptions({
        queryKey: [...keys.frameworks, 'list', query],
        queryFn: () => call(c.GET('/api/v1/frameworks', { params: { query } })),
      }),
    /** Framework names by id (the newest 500 frameworks). */
    frameworkNames: () =>
      queryOptions({
        queryKey: [...keys.frameworks, 'names'],
        queryFn: async () =>
          Object.fromEntries(
            (await call(c.GET('/api/v1/frameworks', { params: { query: { limit: 500 } } }))).items.map((f) => [f.id, f.name]),
          ) as Record<string, string>,
        staleTime: 30_000,
      }),
    framework: (id: string) =>
      queryOptions({
        queryKey: [...keys.frameworks, 'one', id],
        queryFn: () => call(c.GET('/api/v1/frameworks/{id}', { params: { path: { id } } })),
      }),
    explain: (id: string, cycles = 20) =>
      queryOptions({
        queryKey: [...keys.frameworks, 'explain', id, cycles],
        queryFn: () => call(c.GET('/api/v1/frameworks/{id}/explain', { params: { path: { id }, query: { cycles } } })),
      }),
    tasks: (query: Query<'/api/v1/tasks'>) =>
      queryOptions({ queryKey: [...keys.tasks, 'list', query], queryFn: () => call(c.GET('/api/v1/tasks', { params: { query } })) }),
    task: (id: string) =>
      queryOptions({
        queryKey: [...keys.tasks, 'one', id],
        queryFn: () => call(c.GET('/api/v1/tasks/{id}', { params: { path: { id } } })),
      }),
    executors: (query: Query<'/api/v1/executors'>) =>
      queryOptions({
        queryKey: [...keys.executors, 'list', query],
        queryFn: () => call(c.GET('/api/v1/executors', { params: { query } })),
      }),
    offers: (query: Query<'/api/v1/offers'>) =>
      queryOptions({ queryKey: [...keys.offers, query], queryFn: () => call(c.GET('/api/v1/offers', { params: { query } })) }),
    roles: () => queryOptions({ queryKey: keys.roles, queryFn: () => call(c.GET('/api/v1/roles')) }),
    reservations: (query: Query<'/api/v1/reservations'> = {}) =>
      queryOptions({ queryKey: [...keys.reservations, query], queryFn: () => call(c.GET('/api/v1/reservations', { params: { query } })) }),
    volumes: (query: Query<'/api/v1/volumes'> = {}) =>
      queryOptions({ queryKey: [...keys.volumes, query], queryFn: () => call(c.GET('/api/v1/volumes', { params: { query } })) }),
    schedule: () =>
      queryOptions({ queryKey: [...keys.maintenance, 'schedule'], queryFn: () => call(c.GET('/api/v1/maintenance/schedule')) }),
    maintenanceStatus: () =>
      queryOptions({ queryKey: [...keys.maintenance, 'status'], queryFn: () => call(c.GET('/api/v1/maintenance/status')) }),
    whitelist: () => queryOptions({ queryKey: keys.whitelist, queryFn: () => call(c.GET('/api/v1/whitelist')) }),
    cycles: (query: Query<'/api/v1/allocations'>) =>
      queryOptions({ queryKey: [...keys.cycles, 'list', query], queryFn: () => call(c.GET('/api/v1/allocations', { params: { query } })) }),
    cycle: (id: string) =>
      queryOptions({
        queryKey: [...keys.cycles, 'one', id],
        queryFn: () => call(c.GET('/api/v1/allocations/{id}', { params: { path: { id } } })),
      }),
    shares: (query: Query<'/api/v1/allocations/shares'>) =>
      queryOptions({ queryKey: [...keys.shares, query], queryFn: () => call(c.GET('/api/v1/allocations/shares', { params: { query } })) }),
    audit: (query: Query<'/api/v1/audit'>) =>
      queryOptions({ queryKey: [...keys.audit, query], queryFn: () => call(c.GET('/api/v1/audit', { params: { query } })) }),
  };
}

export type Queries = ReturnType<typeof makeQueries>;

/** The browser's queries. */
export const q = makeQueries(api);
export const frameworkNames = q.frameworkNames;
