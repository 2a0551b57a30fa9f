'use client';
import { When } from '@/components/when';
/** One agent: its settings, resources (revocable ones apart), attributes, container capabilities, tasks, reservations and outstanding offers. */
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@/lib/navigation';
import { DataTable } from '@/components/table';
import { ErrorPanel, formatTotal, Loading, PageHeader, Panel } from '@/components/ui';
import { UsageBar, UsageLegend } from '@/components/usage';
import { bytes, duration, percent } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { DETAIL_LIMIT } from '@/lib/pages';
import { frameworkNames, keys, q } from '@/lib/queries';
import type { Schemas } from '@/lib/api';
import { AgentActions, WhitelistSwitch } from './agent-actions';
import { AgentHealthBadges, AgentStateBadges, AgentStatusBadge } from './agents';
import { offerColumns, taskColumns } from './common-columns';
import { ReservationsTable } from './reservations';
import { ExecutorsPanel } from './executors';
import { AgentContainersPanel } from './containers';
import { regularUsage, RevocablePanel } from './oversubscription';

export function AgentDetailView({ id }: { id: string }) {
  const navigate = useNavigate();
  const agent = useQuery(q.agent(id));
  const tasks = useQuery(q.tasks({ agentId: id, limit: DETAIL_LIMIT }));
  const offers = useQuery(q.offers({ agentId: id, state: 'OUTSTANDING', limit: DETAIL_LIMIT }));
  const whitelist = useQuery(q.whitelist());
  const names = useQuery(frameworkNames());
  useLiveInvalidate(
    ['agent.updated', 'agent.removed', 'task.updated', 'offer.created', 'offer.closed'],
    [keys.agents, keys.tasks, keys.offers, keys.executors],
    1000,
  );

  if (agent.error) return <ErrorPanel error={agent.error} onRetry={() => void agent.refetch()} />;
  if (!agent.data) return <Loading rows={8} />;
  const a = agent.data;
  // Regular resources here, revocable ones in their own panel.
  const regular = regularUsage(a.usage);
  const resources = Object.keys(regular.total).sort();
  return (
    <>
      <PageHeader
        title={a.hostname}
        description={
          <>
            Agent <code>{a.id}</code>
          </>
        }
        actions={<AgentActions agent={a} />}
      />
      <div className="grid cols-2">
        <Panel title="Agent">
          <dl className="props">
            <dt>Status</dt>
            <dd>
              <AgentStatusBadge agent={a} />
            </dd>
            <dt>Offers</dt>
            <dd>
              <AgentStateBadges agent={a} />
            </dd>
            <dt>Health</dt>
            <dd>
              <AgentHealthBadges agent={a} />
              {a.health && !a.health.ok ? (
                <ul>
                  {a.health.problems.map((p) => (
                    <li key={p.code}>{p.message}</li>
                  ))}
                </ul>
              ) : null}
            </dd>
            <dt>Sandbox disk</dt>
            <dd>
              <SandboxDiskUse disk={a.health?.sandboxDisk} />
            </dd>
            <dt>Whitelisted</dt>
            <dd>
              <WhitelistSwitch agent={a} whitelistSet={whitelist.data?.hostnames != null} />
            </dd>
            <dt>Maintenance</dt>
            <dd>
              {a.maintenance ? (
                <>
                  {a.maintenance.mode.toLowerCase()}, from <When at={a.maintenance.start} /> for {duration(a.maintenance.durationSeconds)}
                </>
              ) : (
                'none scheduled'
              )}
            </dd>
            <dt>Drain</dt>
            <dd>
              {a.drainState ? (
                <>
                  {a.drainState.toLowerCase()} since <When at={a.drainStartedAt} />
                  {a.drainConfig?.maxGracePeriodSeconds != null ? `, grace ${a.drainConfig.maxGracePeriodSeconds} s` : ''}
                  {a.drainConfig?.markGone ? ', then gone' : ''}
                </>
              ) : (
                '—'
              )}
            </dd>
            <dt>Address</dt>
            <dd>{a.address ?? '—'}</dd>
            <dt>Version</dt>
            <dd>{a.version ?? '—'}</dd>
            <dt>Isolation</dt>
            <dd>
              {a.isolation ? (
                <>
                  {a.isolation.mode === 'posix' ? 'posix (no hard limits)' : `${a.isolation.mode}: ${a.isolation.controllers.join(', ')}`}
                  {a.isolation.taskUser ? `; tasks as ${a.isolation.taskUser}` : ''}
                  {a.isolation.diskQuota ? '; disk enforced' : ''}
                </>
              ) : (
                'not reported'
              )}
            </dd>
            <dt>Principal</dt>
            <dd>{a.principal ?? '—'}</dd>
            <dt>First seen</dt>
            <dd>
              <When at={a.firstSeenAt} />
            </dd>
            <dt>Last seen</dt>
            <dd>
              <When at={a.lastSeenAt} />
            </dd>
            <dt>Resources</dt>
            <dd>
              <code>{a.resourcesText}</code>
            </dd>
            <dt>Attributes</dt>
            <dd>
              {Object.keys(a.attributes).length
                ? Object.entries(a.attributes).map(([k, v]) => (
                    <code key={k} style={{ marginRight: 8 }}>
                      {k}:{String(v)}
                    </code>
                  ))
                : 'none'}
            </dd>
          </dl>
        </Panel>
        <Panel title="Resources" actions={<UsageLegend />}>
          <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
            {resources.map((name) => (
              <div key={name}>
                <strong>{name}</strong>
                <UsageBar
                  name={name}
                  total={regular.total[name]}
                  used={regular.used[name]}
                  offered={regular.offered[name]}
                  reserved={a.usage.reserved[name]}
                />
              </div>
            ))}
          </div>
        </Panel>
      </div>
      <RevocablePanel revocable={a.usage.revocable} />
      <AgentContainersPanel capabilities={a.capabilities} />
      <Panel
        title={`Tasks (${tasks.data ? formatTotal(tasks.data) : '…'})`}
        actions={<Link href={`/tasks?agentId=${encodeURIComponent(id)}`}>All of this agent's tasks</Link>}
      >
        {tasks.error ? (
          <ErrorPanel error={tasks.error} />
        ) : tasks.data ? (
          <DataTable
            label="Tasks on this agent"
            columns={taskColumns(names.data, { framework: true })}
            data={tasks.data.items}
            getRowId={(t) => t.id}
            onRowClick={(t) => navigate(`/tasks/${t.id}`)}
            empty="No task has run here."
          />
        ) : (
          <Loading />
        )}
      </Panel>
      <ExecutorsPanel agentId={id} names={names.data} />
      <Panel title="Reservations">
        <ReservationsTable agentId={id} />
      </Panel>
      <Panel title={`Outstanding offers (${offers.data ? formatTotal(offers.data) : '…'})`}>
        {offers.error ? (
          <ErrorPanel error={offers.error} />
        ) : offers.data ? (
          <DataTable
            label="Outstanding offers of this agent"
            columns={offerColumns(names.data)}
            data={offers.data.items}
            getRowId={(o) => o.id}
            empty="No offer of this agent's resources is outstanding."
          />
        ) : (
          <Loading />
        )}
      </Panel>
    </>
  );
}

/** The disk holding the agent's sandboxes, as it last reported: free of total, used share, and where its GC acts at once. */
function SandboxDiskUse({ disk }: { disk: Schemas['SandboxDiskDto'] | undefined }) {
  if (!disk) return <>not reported</>;
  const used = disk.totalBytes > 0 ? 1 - disk.freeBytes / disk.totalBytes : 0;
  const tight = used >= 1 - disk.gcHeadroom;
  return (
    <>
      {bytes(disk.freeBytes)} free of {bytes(disk.totalBytes)} ({percent(used)} used)
      <div className="muted">
        {tight
          ? `under the ${percent(disk.gcHeadroom, 0)} its garbage collection keeps free: ended tasks' sandboxes go at once`
          : `ended tasks' sandboxes go sooner as it fills, at once under ${percent(disk.gcHeadroom, 0)} free`}
      </div>
    </>
  );
}
