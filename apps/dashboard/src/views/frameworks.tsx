'use client';
/** Frameworks: roles, suppressed roles, offers, tasks and dominant share; one framework's detail and teardown. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@/lib/navigation';
import { useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { When } from '@/components/when';
import { columnsFor, DataTable } from '@/components/table';
import { useToast } from '@/components/toast';
import { Badge, ErrorPanel, Field, formatTotal, Loading, PageHeader, Pager, Panel } from '@/components/ui';
import { api, call, type Schemas } from '@/lib/api';
import { percent, scalars } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { DETAIL_LIMIT, LIST_LIMIT } from '@/lib/pages';
import { keys, q } from '@/lib/queries';
import { offerColumns, taskColumns } from './common-columns';
import { KillButton } from './tasks';
import { ExecutorsPanel } from './executors';

type Framework = Schemas['FrameworkDto'];
const STATES = ['ACTIVE', 'DISCONNECTED', 'COMPLETED'] as const;

export function FrameworkStateBadge({ fw }: { fw: Framework }) {
  const tone = fw.state === 'ACTIVE' ? 'ok' : fw.state === 'DISCONNECTED' ? 'warn' : 'none';
  return <Badge tone={tone}>{fw.state.toLowerCase()}</Badge>;
}

function ShareBar({ share }: { share: number }) {
  return (
    <div className="usage" title={percent(share)}>
      <div className="bar">
        <span className="used" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </div>
      <span className="text">{percent(share)}</span>
    </div>
  );
}

export function FrameworksView() {
  const navigate = useNavigate();
  const [state, setState] = useState<'' | (typeof STATES)[number]>('');
  const [offset, setOffset] = useState(0);
  const list = useQuery(q.frameworks({ state: state || undefined, limit: LIST_LIMIT, offset }));
  useLiveInvalidate(['framework.added', 'framework.removed', 'task.updated', 'offer.created', 'offer.closed'], [keys.frameworks], 2000);
  const c = columnsFor<Framework>();
  const columns = c.columns([
    c.accessor('name', {
      header: 'Name',
      cell: (i) => (
        <Link href={`/frameworks/${i.row.original.id}`} onClick={(e) => e.stopPropagation()}>
          {i.getValue()}
        </Link>
      ),
    }),
    c.accessor('state', { header: 'State', cell: (i) => <FrameworkStateBadge fw={i.row.original} /> }),
    c.accessor('protocol', { header: 'Protocol', cell: (i) => <ProtocolLabel protocol={i.getValue()} /> }),
    c.accessor('roles', { header: 'Roles', cell: (i) => i.getValue().join(', ') }),
    c.accessor('suppressedRoles', {
      header: 'Suppressed',
      cell: (i) => (i.getValue().length ? <Badge tone="warn">{i.getValue().join(', ')}</Badge> : <span className="muted">—</span>),
    }),
    c.accessor('activeTasks', { header: 'Tasks', meta: { align: 'right' } }),
    c.accessor('outstandingOffers', { header: 'Offers', meta: { align: 'right' } }),
    c.accessor('dominantShare', { header: 'Dominant share', cell: (i) => <ShareBar share={i.getValue()} /> }),
    c.accessor('registeredAt', { header: 'Registered', cell: (i) => <When at={i.getValue()} as="ago" /> }),
  ]);
  return (
    <>
      <PageHeader
        title="Frameworks"
        description="Schedulers subscribed to the cluster. Dominant share: the largest fraction of any resource their live tasks hold."
      />
      <div className="filters">
        <Field label="State">
          {(p) => (
            <select
              {...p}
              value={state}
              onChange={(e) => {
                setState(e.target.value as typeof state);
                setOffset(0);
              }}
            >
              <option value="">any</option>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {s.toLowerCase()}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {list.error ? <ErrorPanel error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.data ? (
        <>
          <DataTable
            label="Frameworks"
            columns={columns}
            data={list.data.items}
            getRowId={(f) => f.id}
            onRowClick={(f) => navigate(`/frameworks/${f.id}`)}
            empty="No framework has subscribed yet."
          />
          <Pager total={list.data.total} limit={LIST_LIMIT} offset={offset} onChange={setOffset} />
        </>
      ) : list.error ? null : (
        <Loading rows={5} />
      )}
    </>
  );
}

export function ExplainPanel({ frameworkId }: { frameworkId: string }) {
  const explain = useQuery(q.explain(frameworkId));
  useLiveInvalidate(['cycle'], [[...keys.frameworks, 'explain', frameworkId]], 5000);
  return (
    <Panel
      title="Why (no) offers?"
      actions={<span className="muted">from the decision traces of the last {explain.data?.cyclesExamined ?? 20} recorded cycles</span>}
    >
      {explain.error ? (
        <ErrorPanel error={explain.error} onRetry={() => void explain.refetch()} />
      ) : explain.data ? (
        <>
          <ul data-testid="explain">
            {explain.data.summary.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ul>
          {Object.keys(explain.data.reasons).length ? (
            <p className="muted">
              Reasons counted:{' '}
              {Object.entries(explain.data.reasons)
                .map(([r, n]) => `${r} × ${n}`)
                .join(', ')}
            </p>
          ) : null}
        </>
      ) : (
        <Loading rows={3} />
      )}
    </Panel>
  );
}

export function FrameworkDetailView({ id }: { id: string }) {
  const navigate = useNavigate();
  const fw = useQuery(q.framework(id));
  const tasks = useQuery(q.tasks({ frameworkId: id, limit: DETAIL_LIMIT }));
  const offers = useQuery(q.offers({ frameworkId: id, state: 'OUTSTANDING', limit: DETAIL_LIMIT }));
  const [tearing, setTearing] = useState(false);
  const [typed, setTyped] = useState('');
  const queryClient = useQueryClient();
  const toast = useToast();
  useLiveInvalidate(
    ['framework.removed', 'task.updated', 'offer.created', 'offer.closed', 'agent.updated'],
    [keys.frameworks, keys.tasks, keys.offers, keys.executors],
    1000,
  );
  if (fw.error) return <ErrorPanel error={fw.error} onRetry={() => void fw.refetch()} />;
  if (!fw.data) return <Loading rows={8} />;
  const f = fw.data;
  const names = { [f.id]: f.name };
  const taskColumnsWithKill = [
    ...taskColumns(names, { agent: true }),
    columnsFor<Schemas['TaskDto']>().display({ id: 'kill', header: '', cell: (i) => <KillButton task={i.row.original} /> }),
  ];
  return (
    <>
      <PageHeader
        title={f.name}
        description={
          <>
            Framework <code>{f.id}</code>
          </>
        }
        actions={
          <button
            type="button"
            className="danger"
            disabled={f.state === 'COMPLETED'}
            onClick={() => {
              setTyped('');
              setTearing(true);
            }}
          >
            Tear down
          </button>
        }
      />
      <div className="grid cols-2">
        <Panel title="Framework">
          <dl className="props">
            <dt>State</dt>
            <dd>
              <FrameworkStateBadge fw={f} /> {f.connected ? <Badge tone="ok">connected</Badge> : <Badge tone="warn">not connected</Badge>}
            </dd>
            <dt>Roles</dt>
            <dd>{f.roles.join(', ')}</dd>
            <dt>Suppressed roles</dt>
            <dd>{f.suppressedRoles.length ? f.suppressedRoles.join(', ') : 'none'}</dd>
            <dt>Capabilities</dt>
            <dd>{f.capabilities.length ? f.capabilities.join(', ') : 'none'}</dd>
            <dt>Protocol</dt>
            <dd>
              <ProtocolLabel protocol={f.protocol} />
            </dd>
            <dt>Principal</dt>
            <dd>{f.principal ?? (f.protocol === 'mesos' ? 'none (anonymous)' : '—')}</dd>
            {f.webuiUrl ? (
              <>
                <dt>Web UI</dt>
                <dd>
                  <a href={f.webuiUrl} rel="noreferrer noopener" target="_blank">
                    {f.webuiUrl}
                  </a>
                </dd>
              </>
            ) : null}
            <dt>Failover timeout</dt>
            <dd>{f.failoverTimeoutSeconds} s</dd>
            <dt>Registered</dt>
            <dd>
              <When at={f.registeredAt} />
            </dd>
            {f.disconnectedAt ? (
              <>
                <dt>Disconnected</dt>
                <dd>
                  <When at={f.disconnectedAt} />
                </dd>
              </>
            ) : null}
            {f.completedAt ? (
              <>
                <dt>Completed</dt>
                <dd>
                  <When at={f.completedAt} />
                </dd>
              </>
            ) : null}
          </dl>
        </Panel>
        <Panel title="Share of the cluster">
          <dl className="props">
            <dt>Dominant share</dt>
            <dd>
              <ShareBar share={f.dominantShare} />
            </dd>
            <dt>Held by tasks and executors</dt>
            <dd>{scalars(f.used)}</dd>
            <dt>Per resource</dt>
            <dd>
              {Object.entries(f.shares)
                .map(([k, v]) => `${k} ${percent(v)}`)
                .join(', ') || '—'}
            </dd>
            <dt>Live tasks</dt>
            <dd>{f.activeTasks}</dd>
            <dt>Offers outstanding</dt>
            <dd>{f.outstandingOffers}</dd>
          </dl>
          <p>
            <Link href={`/allocations?frameworkId=${f.id}`}>Allocation history of this framework</Link>
          </p>
        </Panel>
      </div>
      <ExplainPanel frameworkId={id} />
      <Panel title={`Outstanding offers (${offers.data ? formatTotal(offers.data) : '…'})`}>
        {offers.error ? (
          <ErrorPanel error={offers.error} />
        ) : offers.data ? (
          <DataTable
            label="Outstanding offers"
            columns={offerColumns(names)}
            data={offers.data.items}
            getRowId={(o) => o.id}
            empty="No offer outstanding."
          />
        ) : (
          <Loading />
        )}
      </Panel>
      <Panel
        title={`Tasks (${tasks.data ? formatTotal(tasks.data) : '…'})`}
        actions={<Link href={`/tasks?frameworkId=${id}`}>All of its tasks</Link>}
      >
        {tasks.error ? (
          <ErrorPanel error={tasks.error} />
        ) : tasks.data ? (
          <DataTable
            label="Tasks of this framework"
            columns={taskColumnsWithKill}
            data={tasks.data.items}
            getRowId={(t) => t.id}
            onRowClick={(t) => navigate(`/tasks/${t.id}`)}
            empty="No task launched."
          />
        ) : (
          <Loading />
        )}
      </Panel>
      <ExecutorsPanel frameworkId={id} />
      <ActionDialog
        open={tearing}
        onClose={() => setTearing(false)}
        title={`Tear down ${f.name}?`}
        confirmLabel="Tear down"
        danger
        disabled={typed !== f.name}
        onConfirm={async () => {
          await call(api.POST('/api/v1/frameworks/{id}/teardown', { params: { path: { id } } }));
          await Promise.all([keys.frameworks, keys.tasks, keys.cluster].map((k) => queryClient.invalidateQueries({ queryKey: k })));
          toast(`${f.name} torn down`);
        }}
      >
        <p>
          Its {f.activeTasks} live task(s) are killed, its offers rescinded, and it can never subscribe again under this id. This cannot be
          undone.
        </p>
        <Field label={`Type the framework's name (${f.name}) to confirm`}>
          {(p) => <input {...p} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />}
        </Field>
      </ActionDialog>
    </>
  );
}

/** Which protocol a framework speaks: Arbiter's SDK (socket.io) or Mesos's v1 scheduler HTTP API. */
function ProtocolLabel({ protocol }: { protocol: Framework['protocol'] }) {
  return protocol === 'mesos' ? <Badge tone="info">Mesos API</Badge> : <span className="muted">Arbiter SDK</span>;
}
