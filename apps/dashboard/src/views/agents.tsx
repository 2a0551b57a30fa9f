'use client';
import { When } from '@/components/when';
/**
 * Agents: every agent in one scrolling table (rows rendered as they come into view, pages of
 * the API loaded as the operator scrolls), filtered and sorted by the API.
 */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@/lib/navigation';
import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { type Columns, columnsFor, type Sort, sortParam, VirtualTable } from '@/components/table';
import { Badge, ErrorPanel, Field, Loading, PageHeader } from '@/components/ui';
import { UsageBar, UsageLegend } from '@/components/usage';
import type { Schemas } from '@/lib/api';
import { useLiveInvalidate } from '@/lib/live';
import { type AgentQuery, keys, q } from '@/lib/queries';
import { AgentActions, WhitelistSwitch } from './agent-actions';
import { regularUsage } from './oversubscription';

type Agent = Schemas['AgentViewDto'];

export function AgentStatusBadge({ agent }: { agent: Agent }) {
  const tone = agent.status === 'REACHABLE' ? 'ok' : agent.status === 'UNREACHABLE' ? 'bad' : 'none';
  return <Badge tone={tone}>{agent.status.toLowerCase()}</Badge>;
}

/** What the agent says keeps it from running new tasks, in words. */
const PROBLEM_LABELS: Record<string, string> = {
  DISK_RESERVE_IN_USE: 'disk reserve in use',
  JOURNAL_UNWRITABLE: 'journal unwritable',
  WORK_DIR_UNREADABLE: 'work directory unreadable',
};

/** The agent's own health: ok, not reported, or each problem (the agent page lists their messages). */
export function AgentHealthBadges({ agent }: { agent: Agent }) {
  if (!agent.health) return <>not reported</>;
  if (agent.health.ok) return <Badge tone="ok">ok</Badge>;
  return (
    <span className="actions">
      {agent.health.problems.map((p) => (
        <Badge key={p.code} tone="bad">
          {PROBLEM_LABELS[p.code] ?? p.code.toLowerCase()}
        </Badge>
      ))}
    </span>
  );
}

export function AgentStateBadges({ agent }: { agent: Agent }) {
  const badges = [];
  if (agent.drainState)
    badges.push(
      <Badge key="drain" tone="warn">
        {agent.drainState.toLowerCase()}
      </Badge>,
    );
  else if (!agent.activated)
    badges.push(
      <Badge key="off" tone="warn">
        deactivated
      </Badge>,
    );
  if (agent.maintenance)
    badges.push(
      <Badge key="mnt" tone={agent.maintenance.mode === 'DOWN' ? 'bad' : 'info'}>
        {agent.maintenance.mode === 'DOWN' ? 'down for maintenance' : 'maintenance scheduled'}
      </Badge>,
    );
  if (!agent.whitelisted)
    badges.push(
      <Badge key="wl" tone="warn">
        not whitelisted
      </Badge>,
    );
  return badges.length ? <span className="actions">{badges}</span> : <Badge tone="ok">offered</Badge>;
}

/** Regular resources (revocable ones are on the agent's page). */
function usageCell(name: string) {
  return (a: Agent) => {
    const regular = regularUsage(a.usage);
    return regular.total[name] ? (
      <UsageBar
        compact
        name={name}
        total={regular.total[name]}
        used={regular.used[name]}
        offered={regular.offered[name]}
        reserved={a.usage.reserved[name]}
      />
    ) : (
      <span className="muted">—</span>
    );
  };
}

export function AgentsView() {
  const navigate = useNavigate();
  const [hostname, setHostname] = useState('');
  const [status, setStatus] = useState<'' | 'REACHABLE' | 'UNREACHABLE' | 'GONE'>('');
  const [sort, setSort] = useState<Sort>({ field: 'hostname', descending: false });
  const filter = useDeferredValue(hostname.trim());
  const whitelist = useQuery(q.whitelist());
  const whitelisted = whitelist.data?.hostnames ?? undefined;
  const whitelistSet = whitelisted !== undefined;

  const query: AgentQuery = { hostname: filter || undefined, status: status || undefined, sort: sortParam(sort) as AgentQuery['sort'] };
  const list = useInfiniteQuery({ ...q.agentPages(query), placeholderData: (previous) => previous });
  useLiveInvalidate(['agent.added', 'agent.updated', 'agent.removed'], [keys.agents], 1000);
  useLiveInvalidate(['task.updated', 'offer.created', 'offer.closed'], [keys.agents], 5000);

  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const total = list.data?.pages[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const more = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const columns: Columns<Agent> = useMemo(() => {
    const c = columnsFor<Agent>();
    return c.columns([
      c.accessor('hostname', {
        header: 'Hostname',
        meta: { sort: 'hostname' },
        cell: (i) => (
          <Link href={`/agents/${encodeURIComponent(i.row.original.id)}`} onClick={(e) => e.stopPropagation()}>
            {i.getValue()}
          </Link>
        ),
      }),
      c.accessor('status', { header: 'Status', meta: { sort: 'status' }, cell: (i) => <AgentStatusBadge agent={i.row.original} /> }),
      c.display({ id: 'state', header: 'Offers', cell: (i) => <AgentStateBadges agent={i.row.original} /> }),
      c.display({ id: 'cpus', header: 'CPUs used', cell: (i) => usageCell('cpus')(i.row.original) }),
      c.display({ id: 'mem', header: 'Memory used', cell: (i) => usageCell('mem')(i.row.original) }),
      c.display({ id: 'tasks', header: 'Tasks', meta: { align: 'right' }, cell: (i) => i.row.original.usage.activeTasks }),
      c.display({
        id: 'whitelist',
        header: 'Whitelisted',
        cell: (i) => <WhitelistSwitch agent={i.row.original} whitelistSet={whitelistSet} />,
      }),
      c.accessor('lastSeenAt', { header: 'Last seen', meta: { sort: 'lastSeenAt' }, cell: (i) => <When at={i.getValue()} as="ago" /> }),
      c.display({ id: 'actions', header: 'Actions', cell: (i) => <AgentActions agent={i.row.original} /> }),
    ]);
  }, [whitelistSet]);

  return (
    <>
      <PageHeader
        title="Agents"
        description={
          list.data
            ? `${total.toLocaleString('en-US')} agent${total === 1 ? '' : 's'}${filter || status ? ' match' : ''}; whitelist ${whitelisted ? `set (${whitelisted.length} hostnames)` : 'off: every agent may be offered'}.`
            : 'Every machine that has registered.'
        }
        actions={<UsageLegend />}
      />
      <div className="filters" role="search">
        <Field label="Hostname contains">
          {(p) => <input {...p} type="search" value={hostname} placeholder="e.g. rack-a" onChange={(e) => setHostname(e.target.value)} />}
        </Field>
        <Field label="Status">
          {(p) => (
            <select {...p} value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              <option value="">any</option>
              <option value="REACHABLE">reachable</option>
              <option value="UNREACHABLE">unreachable</option>
              <option value="GONE">gone</option>
            </select>
          )}
        </Field>
        {list.isFetching ? (
          <span className="muted" aria-live="polite">
            updating…
          </span>
        ) : null}
      </div>
      {list.error ? <ErrorPanel error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.isPending ? (
        <Loading rows={8} />
      ) : (
        <VirtualTable
          label="Agents"
          columns={columns}
          data={rows}
          getRowId={(a) => a.id}
          sort={sort}
          onSort={setSort}
          onNearEnd={more}
          onRowClick={(a) => navigate(`/agents/${encodeURIComponent(a.id)}`)}
          empty={
            filter || status
              ? 'No agent matches.'
              : 'No agent has registered yet. Start one with `npx arbiter agent --master URL --token T`.'
          }
          footer={isFetchingNextPage ? <div className="empty">Loading more…</div> : null}
        />
      )}
    </>
  );
}
