'use client';
/**
 * Allocation history: cycles over time, their offers and decision traces, "why did this
 * framework (not) get offers?", dominant share over time, and exports.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@/lib/navigation';
import { useState } from 'react';
import { CyclesChart, ShareChart } from '@/components/charts';
import { When } from '@/components/when';
import { columnsFor, DataTable } from '@/components/table';
import { ErrorPanel, Field, Loading, PageHeader, Pager, Panel } from '@/components/ui';
import type { Schemas } from '@/lib/api';
import { percent, shortId, trim } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { ALLOCATION_FILTERS, allocationQueries, LIST_LIMIT, RANGES } from '@/lib/pages';
import { frameworkNames, keys, q } from '@/lib/queries';
import { useUrlState } from '@/lib/use-url-state';
import { FrameworkSelect, offerColumns } from './common-columns';
import { ExplainPanel } from './frameworks';

type Cycle = Schemas['CycleDto'];

const reasonsText = (r?: Record<string, number>) =>
  Object.entries(r ?? {})
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k.toLowerCase().replace(/_/g, ' ')} × ${n}`)
    .join(', ') || '—';

export function AllocationsView({ now: initialNow }: { now: number }) {
  const navigate = useNavigate();
  const [f, setF] = useUrlState(ALLOCATION_FILTERS);
  // The range ends at the time the page was made, and moves only when asked (or the range changes).
  const [now, setNow] = useState(initialNow);
  const a = allocationQueries(q, f, now);
  const { range, from, kind } = a;
  const offset = Number(f.offset) || 0;
  const names = useQuery(frameworkNames());
  const chart = useQuery({ ...a.chart, placeholderData: (p) => p });
  const list = useQuery({ ...a.list, placeholderData: (p) => p });
  const shares = useQuery({ ...a.shares, placeholderData: (p) => p });
  useLiveInvalidate(['cycle'], [keys.cycles, keys.shares], 5000);

  const c = columnsFor<Cycle>();
  const columns = c.columns([
    c.accessor('id', {
      header: 'Cycle',
      cell: (i) => (
        <Link href={`/allocations/${i.getValue()}`} onClick={(e) => e.stopPropagation()}>
          #{i.getValue()}
        </Link>
      ),
    }),
    c.accessor('startedAt', { header: 'At', cell: (i) => <When at={i.getValue()} /> }),
    c.accessor('offerCount', { header: 'Offers', meta: { align: 'right' } }),
    c.accessor('durationMs', { header: 'Allocator time', meta: { align: 'right' }, cell: (i) => `${trim(i.getValue(), 2)} ms` }),
    c.accessor('reasons', {
      header: 'Decisions against offering',
      cell: (i) => <span className="muted">{reasonsText(i.getValue())}</span>,
    }),
  ]);
  const exportHref = (format: 'csv' | 'json') => `/api/v1/allocations/export?format=${format}&from=${encodeURIComponent(from)}`;

  return (
    <>
      <PageHeader
        title="Allocation history"
        description="Every cycle that offered something, or decided differently from the one before, with its offers, decision trace and the dominant shares after it."
        actions={
          <>
            <a className="button" href={exportHref('csv')} download>
              Export CSV
            </a>
            <a className="button" href={exportHref('json')} download>
              Export JSON
            </a>
          </>
        }
      />
      <div className="filters" role="search">
        <Field label="Time range">
          {(p) => (
            <select
              {...p}
              value={range.key}
              onChange={(e) => {
                setNow(Date.now());
                setF({ range: e.target.value, offset: '' });
              }}
            >
              {RANGES.map((r) => (
                <option key={r.key} value={r.key}>
                  {r.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Offered to role">
          {(p) => (
            <input
              {...p}
              type="search"
              value={f.role}
              onChange={(e) => setF({ role: e.target.value.trim(), offset: '' })}
              placeholder="any role"
            />
          )}
        </Field>
        <FrameworkSelect
          label="Offered to framework"
          value={f.frameworkId}
          names={names.data}
          onChange={(id) => setF({ frameworkId: id, offset: '' })}
        />
        <Field label="Offering agent id">
          {(p) => (
            <input
              {...p}
              type="search"
              value={f.agentId}
              onChange={(e) => setF({ agentId: e.target.value.trim(), offset: '' })}
              placeholder="any agent"
            />
          )}
        </Field>
        <button type="button" onClick={() => setNow(Date.now())}>
          Refresh range
        </button>
      </div>
      <Panel title="Offers per cycle" actions={<span className="muted">click a bar to open its cycle</span>}>
        {chart.error ? (
          <ErrorPanel error={chart.error} onRetry={() => void chart.refetch()} />
        ) : chart.data ? (
          <CyclesChart cycles={chart.data.items} onSelect={(id) => id && navigate(`/allocations/${id}`)} />
        ) : (
          <Loading rows={3} />
        )}
      </Panel>
      <Panel title="Cycles">
        {list.error ? (
          <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
        ) : list.data ? (
          <>
            <DataTable
              label="Allocation cycles"
              columns={columns}
              data={list.data.items}
              getRowId={(r) => r.id}
              onRowClick={(r) => navigate(`/allocations/${r.id}`)}
              empty="No cycle in this range."
            />
            <Pager
              total={list.data.total}
              capped={list.data.totalCapped}
              limit={LIST_LIMIT}
              offset={offset}
              onChange={(o) => setF({ offset: o ? String(o) : '' })}
            />
          </>
        ) : (
          <Loading />
        )}
      </Panel>
      <Panel
        title="Dominant share over time"
        actions={
          <Field label="Per">
            {(p) => (
              <select {...p} value={kind} onChange={(e) => setF({ kind: e.target.value })}>
                <option value="ROLE">role</option>
                <option value="FRAMEWORK">framework</option>
              </select>
            )}
          </Field>
        }
      >
        {shares.error ? (
          <ErrorPanel error={shares.error} onRetry={() => void shares.refetch()} />
        ) : shares.data ? (
          <ShareChart
            points={shares.data.map((p) => ({ at: p.at, client: p.client, share: p.dominantShare }))}
            names={kind === 'FRAMEWORK' ? names.data : undefined}
            label={`Dominant share per ${kind.toLowerCase()} over time`}
            height={300}
          />
        ) : (
          <Loading rows={3} />
        )}
      </Panel>
      <Panel
        title="Why did a framework (not) get offers?"
        actions={
          <FrameworkSelect
            label="Framework"
            value={f.why}
            names={names.data}
            none="choose a framework"
            onChange={(id) => setF({ why: id })}
          />
        }
      >
        {f.why ? (
          <ExplainPanel frameworkId={f.why} />
        ) : (
          <div className="empty">Choose a framework: the answer comes from the decision traces of the recent cycles.</div>
        )}
      </Panel>
    </>
  );
}

/** Trace entries shown at first; the rest on demand. */
const TRACE_ROWS = 200;

type TraceEntry = { reason: string; agent?: string; role?: string; framework?: string } & Record<string, unknown>;

export function CycleDetailView({ id }: { id: string }) {
  const cycle = useQuery(q.cycle(id));
  const names = useQuery(frameworkNames());
  const [reason, setReason] = useState('');
  const [shown, setShown] = useState(TRACE_ROWS);
  if (cycle.error) return <ErrorPanel error={cycle.error} onRetry={() => void cycle.refetch()} />;
  if (!cycle.data) return <Loading rows={8} />;
  const d = cycle.data;
  const trace = (d.trace ?? { entries: [], counts: {}, truncated: false }) as {
    entries: TraceEntry[];
    counts: Record<string, number>;
    truncated: boolean;
  };
  const entries = reason ? trace.entries.filter((e) => e.reason === reason) : trace.entries;
  const nameOf = (fw?: string) => (fw ? (names.data?.[fw] ?? shortId(fw)) : '—');
  const detail = (e: TraceEntry) =>
    Object.entries(e)
      .filter(([k]) => !['reason', 'agent', 'role', 'framework'].includes(k))
      .map(
        ([k, v]) =>
          `${k}: ${
            typeof v === 'object'
              ? Object.entries(v as Record<string, number>)
                  .map(([a, b]) => `${a} ${trim(b)}`)
                  .join(', ')
              : typeof v === 'string'
                ? v
                : JSON.stringify(v)
          }`,
      )
      .join('; ');
  return (
    <>
      <PageHeader
        title={`Cycle #${d.id}`}
        description={
          <>
            <When at={d.startedAt} /> · {d.offerCount} offer(s) · allocator {trim(d.durationMs, 2)} ms
          </>
        }
        actions={<Link href="/allocations">All cycles</Link>}
      />
      <div className="grid cols-2">
        <Panel title="Dominant shares after the cycle">
          {d.shares.length ? (
            <table className="data" aria-label="Dominant shares">
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>Role or framework</th>
                  <th className="num">Dominant share</th>
                </tr>
              </thead>
              <tbody>
                {d.shares.map((s) => (
                  <tr key={`${s.kind}-${s.client}`}>
                    <td>{s.kind.toLowerCase()}</td>
                    <td>{s.kind === 'FRAMEWORK' ? <Link href={`/frameworks/${s.client}`}>{nameOf(s.client)}</Link> : s.client}</td>
                    <td className="num">{percent(s.dominantShare)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <div className="empty">No share recorded.</div>
          )}
        </Panel>
        <Panel title="Decisions against offering, by reason">
          {Object.keys(trace.counts).length ? (
            <ul>
              {Object.entries(trace.counts).map(([r, n]) => (
                <li key={r}>
                  <code>{r}</code> × {n}
                </li>
              ))}
            </ul>
          ) : (
            <div className="empty">Nothing held back: every agent with free resources was offered.</div>
          )}
          {trace.truncated ? <p className="muted">The trace kept its first {trace.entries.length} entries; the counts cover all.</p> : null}
        </Panel>
      </div>
      <Panel title={`Offers (${d.offers.length})`}>
        <DataTable
          label="Offers of this cycle"
          columns={offerColumns(names.data ?? {})}
          data={d.offers}
          getRowId={(o) => o.id}
          empty="This cycle made no offer."
        />
      </Panel>
      <Panel
        title="Decision trace"
        actions={
          <Field label="Reason">
            {(p) => (
              <select {...p} value={reason} onChange={(e) => setReason(e.target.value)}>
                <option value="">all</option>
                {Object.keys(trace.counts).map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
        }
      >
        {entries.length ? (
          <div className="table-wrap" style={{ maxHeight: 480 }}>
            <table className="data" aria-label="Decision trace">
              <thead>
                <tr>
                  <th>Reason</th>
                  <th>Agent</th>
                  <th>Role</th>
                  <th>Framework</th>
                  <th>Figures</th>
                </tr>
              </thead>
              <tbody>
                {entries.slice(0, shown).map((e, i) => (
                  <tr key={i}>
                    <td>
                      <code>{e.reason}</code>
                    </td>
                    <td>{e.agent ? <Link href={`/agents/${encodeURIComponent(e.agent)}`}>{shortId(e.agent)}</Link> : '—'}</td>
                    <td>{e.role ?? '—'}</td>
                    <td>{e.framework ? <Link href={`/frameworks/${e.framework}`}>{nameOf(e.framework)}</Link> : '—'}</td>
                    <td className="muted">{detail(e) || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <div className="empty">No decision recorded{reason ? ' for this reason' : ''}.</div>
        )}
        {entries.length > shown ? (
          <p>
            <button type="button" onClick={() => setShown(entries.length)}>
              Show all {entries.length} entries
            </button>
          </p>
        ) : null}
      </Panel>
      <p className="muted">
        Recorded at <When at={d.startedAt} as="time" />.
      </p>
    </>
  );
}
