'use client';
import { When } from '@/components/when';
/** The audit log: who changed what and when, with the state before and after. */
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { ErrorPanel, Field, Loading, PageHeader, Pager, Panel } from '@/components/ui';
import type { Schemas } from '@/lib/api';
import { useUrlState } from '@/lib/use-url-state';
import { AUDIT_FILTERS, auditQuery } from '@/lib/pages';
import { q } from '@/lib/queries';

type Entry = Schemas['AuditEntryDto'];

/** The keys whose values differ between before and after, for a one-line summary. */
function changes(before: unknown, after: unknown): string {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  if (before === null) return 'created';
  if (after === null) return 'removed';
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]));
  return keys.length ? keys.map((k) => `${k}: ${short(b[k])} → ${short(a[k])}`).join('; ') : 'no change';
}

function short(v: unknown): string {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  const s = v === undefined ? 'none' : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

export function AuditView() {
  const [f, setF] = useUrlState(AUDIT_FILTERS);
  const query = auditQuery(f);
  const [open, setOpen] = useState<string | null>(null);
  const list = useQuery({ ...q.audit(query), placeholderData: (p) => p });
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made through the API, newest first: who, what, and the state before and after."
      />
      <div className="filters" role="search">
        <Field label="Action" hint="e.g. quota.update, or agent.* for a group">
          {(p) => (
            <input
              {...p}
              type="search"
              value={f.action}
              onChange={(e) => setF({ action: e.target.value.trim(), offset: '' })}
              placeholder="any action"
            />
          )}
        </Field>
        <Field label="Who">
          {(p) => (
            <input
              {...p}
              type="search"
              value={f.actor}
              onChange={(e) => setF({ actor: e.target.value.trim(), offset: '' })}
              placeholder="any principal"
            />
          )}
        </Field>
        <Field label="Target">
          {(p) => (
            <select {...p} value={f.targetType} onChange={(e) => setF({ targetType: e.target.value, offset: '' })}>
              <option value="">any</option>
              {['agent', 'role', 'reservation', 'whitelist', 'maintenance', 'framework'].map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Since">
          {(p) => <input {...p} type="datetime-local" value={f.since} onChange={(e) => setF({ since: e.target.value, offset: '' })} />}
        </Field>
      </div>
      {list.error ? <ErrorPanel error={list.error} onRetry={() => void list.refetch()} /> : null}
      <Panel>
        {list.data ? (
          <>
            <div className="table-wrap">
              <table className="data" aria-label="Audit log">
                <thead>
                  <tr>
                    <th>At</th>
                    <th>Who</th>
                    <th>Action</th>
                    <th>Target</th>
                    <th>Change</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((e: Entry) => (
                    <Fragment key={e.id}>
                      <tr>
                        <td>
                          <When at={e.at} />
                        </td>
                        <td>{e.actor}</td>
                        <td>
                          <code>{e.action}</code>
                        </td>
                        <td>
                          {e.targetType}
                          {e.targetId ? <code> {e.targetId}</code> : null}
                        </td>
                        <td className="muted">{changes(e.before, e.after)}</td>
                        <td>
                          <button
                            type="button"
                            className="small"
                            aria-expanded={open === e.id}
                            onClick={() => setOpen(open === e.id ? null : e.id)}
                          >
                            {open === e.id ? 'Hide' : 'Before / after'}
                          </button>
                        </td>
                      </tr>
                      {open === e.id ? (
                        <tr>
                          <td colSpan={6}>
                            <div className="grid cols-2">
                              <div>
                                <h3>Before</h3>
                                <pre className="json">{JSON.stringify(e.before, null, 2)}</pre>
                              </div>
                              <div>
                                <h3>After</h3>
                                <pre className="json">{JSON.stringify(e.after, null, 2)}</pre>
                              </div>
                            </div>
                            <p className="muted">
                              request <code>{e.requestId ?? '—'}</code> · token <code>{e.tokenId ?? '—'}</code>
                            </p>
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  ))}
                </tbody>
              </table>
              {list.data.items.length === 0 ? <div className="empty">No entry matches.</div> : null}
            </div>
            <Pager
              total={list.data.total}
              limit={query.limit}
              offset={query.offset}
              onChange={(o) => setF({ offset: o ? String(o) : '' })}
            />
          </>
        ) : list.error ? null : (
          <Loading rows={6} />
        )}
      </Panel>
    </>
  );
}
