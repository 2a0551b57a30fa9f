'use client';
/**
 * Oversubscription: revocable capacity (what agents' resource estimators report, what revocable
 * tasks hold, what is offered) and the revocable tasks their QoS controllers evicted.
 */
import { useQuery } from '@tanstack/react-query';
import { Panel, Stat } from '@/components/ui';
import { UsageBar } from '@/components/usage';
import type { Schemas } from '@/lib/api';
import { Link } from '@/lib/navigation';
import { EVICTION_REASON } from '@/lib/pages';
import { q } from '@/lib/queries';

type Revocable = Schemas['RevocableUsageDto'];
type Usage = Schemas['AgentViewDto']['usage'];

/** Whether any revocable resource is reported or held. */
export function hasRevocable(r: Revocable | undefined): r is Revocable {
  return !!r && (Object.keys(r.total).length > 0 || Object.keys(r.used).length > 0);
}

/** An amount less its revocable part (the API's totals include revocable amounts), to the thousandth. */
export function withoutRevocable(value: number, revocable: number | undefined): number {
  return Math.max(0, Math.round((value - (revocable ?? 0)) * 1000) / 1000);
}

/** An agent's usage without its revocable amounts. */
export function regularUsage(u: Usage): Pick<Usage, 'total' | 'used' | 'offered'> {
  const less = (all: Record<string, number>, part: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(all)
        .map(([name, v]) => [name, withoutRevocable(v, part[name])] as const)
        .filter(([, v]) => v > 0),
    );
  return { total: less(u.total, u.revocable.total), used: less(u.used, u.revocable.used), offered: less(u.offered, u.revocable.offered) };
}

/** Total, used and offered revocable resources, one bar each; shown only when there are any. */
export function RevocablePanel({ revocable, title = 'Revocable (oversubscribed)' }: { revocable: Revocable | undefined; title?: string }) {
  if (!hasRevocable(revocable)) return null;
  const names = [...new Set([...Object.keys(revocable.total), ...Object.keys(revocable.used)])].sort();
  return (
    <Panel title={title} actions={<span className="muted">best effort: evicted when the agent needs them back</span>}>
      <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }} aria-label="Revocable resources">
        {names.map((name) => (
          <div key={name}>
            <strong>{name}</strong>
            <UsageBar name={name} total={revocable.total[name] ?? 0} used={revocable.used[name]} offered={revocable.offered[name]} />
          </div>
        ))}
      </div>
    </Panel>
  );
}

const DAY_MS = 24 * 3600 * 1000;

/** Revocable tasks evicted (REASON_CONTAINER_PREEMPTED) in the last 24 hours, of those the viewer may see. */
export function useEvictions() {
  // To the minute, so that one cache entry serves a minute's refetches.
  const since = new Date(Math.floor((Date.now() - DAY_MS) / 60_000) * 60_000).toISOString();
  return useQuery(q.tasks({ reason: EVICTION_REASON, updatedSince: since, limit: 1, offset: 0 }));
}

export function EvictionsStat({ evicted }: { evicted: { total: number; totalCapped: boolean } | undefined }) {
  const n = evicted?.total;
  const text = n === undefined ? '…' : `${n.toLocaleString('en-US')}${evicted?.totalCapped ? '+' : ''}`;
  return (
    <Stat
      label="revocable tasks evicted in the last 24 h"
      value={
        <Link href={`/tasks?reason=${EVICTION_REASON}`} aria-label={`${text} evictions in the last 24 hours`}>
          {text}
        </Link>
      }
      tone={n ? 'warn' : undefined}
    />
  );
}
