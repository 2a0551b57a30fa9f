'use client';
/** The executors of an agent or a framework: id, the other side of it, resources, tasks, state, uptime. */
import { useQuery } from '@tanstack/react-query';
import { columnsFor, DataTable } from '@/components/table';
import { Badge, ErrorPanel, formatTotal, Loading, Panel } from '@/components/ui';
import type { Schemas } from '@/lib/api';
import { duration, shortId } from '@/lib/format';
import { Link } from '@/lib/navigation';
import { DETAIL_LIMIT } from '@/lib/pages';
import { q } from '@/lib/queries';

type Executor = Schemas['ExecutorDto'];

/** How long it has run (or ran, once ended). */
function uptime(e: Executor, now: number): string {
  const end = e.endedAt ? Date.parse(e.endedAt) : now;
  return duration(Math.max(0, Math.round((end - Date.parse(e.startedAt)) / 1000)));
}

function executorColumns(side: 'agent' | 'framework', names: Record<string, string>, now: number) {
  const c = columnsFor<Executor>();
  return c.columns([
    c.accessor('executorId', {
      header: 'Executor',
      cell: (i) => (
        <span title={i.row.original.name ?? undefined}>
          <code>{i.getValue()}</code>
          {i.row.original.type === 'DEFAULT' ? <span className="muted"> (default)</span> : null}
        </span>
      ),
    }),
    c.accessor('state', {
      header: 'State',
      cell: (i) =>
        i.getValue() === 'RUNNING' ? (
          <Badge tone="ok">RUNNING</Badge>
        ) : (
          <span title={i.row.original.message ?? undefined}>
            <Badge tone="warn">ENDED</Badge> {i.row.original.endReason ?? ''}
          </span>
        ),
    }),
    side === 'agent'
      ? c.accessor('frameworkId', {
          header: 'Framework',
          cell: (i) => <Link href={`/frameworks/${i.getValue()}`}>{names[i.getValue()] ?? shortId(i.getValue())}</Link>,
        })
      : c.accessor('agentId', {
          header: 'Agent',
          cell: (i) => <Link href={`/agents/${encodeURIComponent(i.getValue())}`}>{shortId(i.getValue())}</Link>,
        }),
    c.accessor('resourcesText', { header: 'Resources', cell: (i) => <code>{i.getValue()}</code> }),
    c.accessor('tasks', {
      header: 'Tasks',
      cell: (i) => (
        <span title={i.getValue().join(', ')}>
          {i.getValue().length
            ? `${i.getValue().length}: ${i.getValue().slice(0, 3).join(', ')}${i.getValue().length > 3 ? ', …' : ''}`
            : '—'}
        </span>
      ),
    }),
    c.accessor('startedAt', { header: 'Uptime', cell: (i) => uptime(i.row.original, now) }),
  ]);
}

/** A panel listing the executors on an agent (`agentId`) or of a framework (`frameworkId`), newest first. */
export function ExecutorsPanel({
  agentId,
  frameworkId,
  names = {},
}: {
  agentId?: string;
  frameworkId?: string;
  names?: Record<string, string>;
}) {
  const executors = useQuery(q.executors({ agentId, frameworkId, limit: DETAIL_LIMIT }));
  const side = agentId !== undefined ? 'agent' : 'framework';
  return (
    <Panel title={`Executors (${executors.data ? formatTotal(executors.data) : '…'})`}>
      {executors.error ? (
        <ErrorPanel error={executors.error} />
      ) : executors.data ? (
        <DataTable
          label={side === 'agent' ? 'Executors on this agent' : 'Executors of this framework'}
          columns={executorColumns(side, names, Date.now())}
          data={executors.data.items}
          getRowId={(e) => e.id}
          empty={side === 'agent' ? 'No executor has run here.' : 'No executor started: its tasks run under the command executor.'}
        />
      ) : (
        <Loading />
      )}
    </Panel>
  );
}
