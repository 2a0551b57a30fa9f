'use client';
/**
 * Overview: capacity, use and reservations per resource; revocable capacity and evictions
 * (oversubscription, when there is any); counts; live dominant shares per
 * role and per framework (history from the API, then every cycle event); recent cycles; alerts.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@/lib/navigation';
import { useEffect, useState } from 'react';
import { ShareChart, type SharePoint } from '@/components/charts';
import { When } from '@/components/when';
import { columnsFor, DataTable } from '@/components/table';
import { Badge, ErrorPanel, Loading, PageHeader, Panel, Stat } from '@/components/ui';
import { UsageBar, UsageLegend } from '@/components/usage';
import type { Schemas } from '@/lib/api';
import { trim } from '@/lib/format';
import { type ClusterEvent, useLiveEvents, useLiveInvalidate } from '@/lib/live';
import { RECENT_CYCLES, SHARE_POINTS } from '@/lib/pages';
import { frameworkNames, keys, q } from '@/lib/queries';
import { EvictionsStat, hasRevocable, RevocablePanel, useEvictions, withoutRevocable } from './oversubscription';

type Cycle = Schemas['CycleDto'];
const cycleColumns = (() => {
  const c = columnsFor<Cycle>();
  return c.columns([
    c.accessor('id', { header: 'Cycle', cell: (i) => <Link href={`/allocations/${i.getValue()}`}>#{i.getValue()}</Link> }),
    c.accessor('startedAt', { header: 'At', cell: (i) => <When at={i.getValue()} as="time" /> }),
    c.accessor('offerCount', { header: 'Offers', meta: { align: 'right' } }),
    c.accessor('durationMs', { header: 'Allocator time', meta: { align: 'right' }, cell: (i) => `${trim(i.getValue(), 2)} ms` }),
  ]);
})();

const SEVERITY_TONE = { critical: 'bad', warning: 'warn', info: 'info' } as const;

function alertLink(a: Schemas['AlertDto']): string | null {
  if (!a.target.id) return null;
  if (a.target.kind === 'agent') return `/agents/${encodeURIComponent(a.target.id)}`;
  if (a.target.kind === 'framework') return `/frameworks/${encodeURIComponent(a.target.id)}`;
  if (a.target.kind === 'role') return '/roles';
  return null;
}

/** Share history of one kind, kept current from cycle events. */
function useShares(kind: 'ROLE' | 'FRAMEWORK'): { points: SharePoint[]; error: unknown; loading: boolean; refetch: () => void } {
  const history = useQuery(q.shares({ kind, points: SHARE_POINTS }));
  const [live, setLive] = useState<SharePoint[]>([]);
  useEffect(() => setLive([]), [history.dataUpdatedAt]);
  useLiveEvents(['cycle'], (events: ClusterEvent[]) => {
    const added: SharePoint[] = [];
    for (const e of events) {
      if (e.type !== 'cycle') continue;
      const shares = kind === 'ROLE' ? e.data.shares.roles : e.data.shares.frameworks;
      for (const [client, share] of Object.entries(shares)) added.push({ at: e.data.startedAt, client, share });
    }
    if (added.length) setLive((l) => [...l, ...added].slice(-SHARE_POINTS * 4));
  });
  const points = [...(history.data ?? []).map((p) => ({ at: p.at, client: p.client, share: p.dominantShare })), ...live];
  return { points, error: history.error, loading: history.isPending, refetch: () => void history.refetch() };
}

export function OverviewView() {
  const cluster = useQuery(q.cluster());
  const cycles = useQuery(q.cycles({ limit: RECENT_CYCLES }));
  const names = useQuery(frameworkNames());
  const evictions = useEvictions();
  const roleShares = useShares('ROLE');
  const frameworkShares = useShares('FRAMEWORK');
  useLiveInvalidate(
    [
      'agent.added',
      'agent.updated',
      'agent.removed',
      'framework.added',
      'framework.removed',
      'task.updated',
      'offer.created',
      'offer.closed',
      'cycle',
    ],
    [keys.cluster, [...keys.tasks, 'list']],
    2000,
  );
  useLiveInvalidate(['cycle'], [[...keys.cycles, 'list']], 2000);
  useLiveInvalidate(['framework.added'], [[...keys.frameworks, 'names']]);

  const c = cluster.data;
  return (
    <>
      <PageHeader title="Overview" description="Capacity and use of the reachable agents, fair shares and what needs attention." />
      {cluster.error ? <ErrorPanel error={cluster.error} onRetry={() => void cluster.refetch()} /> : null}
      {!c ? (
        !cluster.error && (
          <Panel>
            <Loading rows={5} />
          </Panel>
        )
      ) : (
        <>
          <div className="grid cols-4">
            <Panel>
              <Stat
                label={`agents reachable of ${c.agents.total - c.agents.gone}`}
                value={c.agents.reachable}
                tone={c.agents.unreachable ? 'warn' : undefined}
              />
            </Panel>
            <Panel>
              <Stat
                label={`frameworks active${c.frameworks.disconnected ? `, ${c.frameworks.disconnected} disconnected` : ''}`}
                value={c.frameworks.active}
              />
            </Panel>
            <Panel>
              <Stat label="tasks running or starting" value={c.activeTasks.toLocaleString('en-US')} />
            </Panel>
            <Panel>
              <Stat label="offers outstanding" value={c.outstandingOffers.toLocaleString('en-US')} />
            </Panel>
          </div>
          {hasRevocable(c.revocable) || evictions.data?.total ? (
            <div className="grid cols-2">
              {hasRevocable(c.revocable) ? <RevocablePanel revocable={c.revocable} /> : <div />}
              <Panel title="Evictions">
                <EvictionsStat evicted={evictions.data} />
              </Panel>
            </div>
          ) : null}
          <div className="grid cols-2">
            <Panel title="Capacity" actions={<UsageLegend />}>
              {c.resources.length ? (
                <div style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
                  {c.resources.map((r) => (
                    <div key={r.name}>
                      <strong>{r.name}</strong>
                      <UsageBar
                        name={r.name}
                        total={withoutRevocable(r.total, c.revocable.total[r.name])}
                        used={withoutRevocable(r.used, c.revocable.used[r.name])}
                        offered={withoutRevocable(r.offered, c.revocable.offered[r.name])}
                        reserved={r.reserved}
                      />
                    </div>
                  ))}
                </div>
              ) : (
                <div className="empty">No reachable agent reports resources.</div>
              )}
            </Panel>
            <Panel title={`Alerts (${c.alerts.length})`}>
              {c.alerts.length ? (
                <ul className="alerts" aria-label="Alerts">
                  {c.alerts.map((a, i) => {
                    const href = alertLink(a);
                    return (
                      <li key={i}>
                        <Badge tone={SEVERITY_TONE[a.severity]}>{a.severity}</Badge>
                        <span>{href ? <Link href={href}>{a.message}</Link> : a.message}</span>
                      </li>
                    );
                  })}
                </ul>
              ) : (
                <div className="empty">Nothing needs attention.</div>
              )}
            </Panel>
          </div>
        </>
      )}
      <div className="grid cols-2">
        <Panel title="Dominant share per role" actions={<Link href="/allocations">History</Link>}>
          {roleShares.error ? (
            <ErrorPanel error={roleShares.error} onRetry={roleShares.refetch} />
          ) : roleShares.loading ? (
            <Loading />
          ) : (
            <ShareChart points={roleShares.points} label="Dominant share per role over time" />
          )}
        </Panel>
        <Panel title="Dominant share per framework" actions={<Link href="/frameworks">Frameworks</Link>}>
          {frameworkShares.error ? (
            <ErrorPanel error={frameworkShares.error} onRetry={frameworkShares.refetch} />
          ) : frameworkShares.loading ? (
            <Loading />
          ) : (
            <ShareChart points={frameworkShares.points} names={names.data} label="Dominant share per framework over time" />
          )}
        </Panel>
      </div>
      <Panel title="Recent allocation cycles" actions={<Link href="/allocations">All cycles</Link>}>
        {cycles.error ? (
          <ErrorPanel error={cycles.error} onRetry={() => void cycles.refetch()} />
        ) : cycles.data ? (
          <DataTable
            label="Recent allocation cycles"
            columns={cycleColumns}
            data={cycles.data.items}
            getRowId={(r) => r.id}
            empty="No cycle recorded yet."
          />
        ) : (
          <Loading />
        )}
      </Panel>
    </>
  );
}
