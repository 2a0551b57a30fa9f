'use client';
/**
 * Roles: the role tree with weights and quotas (guarantee and limit against what the role
 * holds), and their editing. The API validates; its errors appear next to the field they are
 * about.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useState } from 'react';
import { ActionDialog, Dialog } from '@/components/dialog';
import { columnsFor, DataTable } from '@/components/table';
import { useToast } from '@/components/toast';
import { ActionError, Badge, ErrorPanel, Field, Loading, PageHeader, Panel } from '@/components/ui';
import { UsageBar } from '@/components/usage';
import { api, call, fieldError, formError, type Schemas } from '@/lib/api';
import { scalars, trim } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { keys, q } from '@/lib/queries';

type Role = Schemas['RoleDto'];

/** `{cpus: 4, mem: 8192}` as the Mesos text the API reads back: "cpus:4;mem:8192". */
const asText = (m: Record<string, number> | undefined) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}:${v}`)
    .join(';');

function QuotaBars({ role }: { role: Role }) {
  // Partial: either may lack a resource the other names.
  const g: Partial<Record<string, number>> = role.quota?.guarantees ?? {};
  const l: Partial<Record<string, number>> = role.quota?.limits ?? {};
  const names = [...new Set([...Object.keys(g), ...Object.keys(l)])].sort();
  if (!names.length) return <span className="muted">no quota</span>;
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      {names.map((n) => {
        const of = l[n] ?? g[n] ?? 0;
        return (
          <div key={n}>
            <span className="muted" style={{ fontSize: '0.8rem' }}>
              {n}: guarantee {g[n] !== undefined ? trim(g[n]) : '—'}, limit {l[n] !== undefined ? trim(l[n]) : 'none'}
            </span>
            <UsageBar
              compact
              name={n}
              total={of}
              used={role.allocated[n] ?? 0}
              reserved={g[n] !== undefined && l[n] !== undefined ? g[n] : 0}
            />
          </div>
        );
      })}
    </div>
  );
}

/** "cpus:4;mem:8192" as quantities; text that is not such a list is left for the API to name. */
const asQuantities = (text: string): Record<string, number> | string => {
  const out: Record<string, number> = {};
  for (const part of text.split(';').filter((p) => p.trim() !== '')) {
    const [name, value] = part.split(':').map((s) => s.trim());
    if (!name || !value || !Number.isFinite(Number(value))) return text;
    out[name] = Number(value);
  }
  return out;
};

/** What the edit would do to the next cycles (POST /api/v1/simulate): each role's share now and with it. */
function WhatIf({ change }: { change: () => Record<string, unknown> }) {
  const preview = useMutation({
    mutationFn: () => call(api.POST('/api/v1/simulate', { body: { change: change(), cycles: 3, scenario: false } })),
  });
  const result = preview.data;
  const [now, after] = [result?.baseline.at(-1)?.shares.roles ?? {}, result?.changed.at(-1)?.shares.roles ?? {}];
  const roles = [...new Set([...Object.keys(now), ...Object.keys(after)])].sort();
  return (
    <section className="what-if" aria-label="What if">
      <button type="button" onClick={() => preview.mutate()} disabled={preview.isPending}>
        {preview.isPending ? 'Predicting…' : 'What if? Predict the next cycles'}
      </button>
      <ActionError error={preview.error} />
      {result && (
        <p className="muted">
          Dominant share after {result.cycles} cycles, as things are and with this change (outstanding offers given back, running tasks
          kept).
        </p>
      )}
      {result && roles.length === 0 && (
        <p role="status">
          No role holds or is offered anything over these cycles, as things are or with this change: shares appear once frameworks subscribe
          to roles.
        </p>
      )}
      {result && roles.length > 0 && (
        <table className="what-if-shares" aria-label="Predicted shares">
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Now</th>
              <th scope="col">With this change</th>
            </tr>
          </thead>
          <tbody>
            {roles.map((r) => (
              <tr key={r}>
                <th scope="row">{r}</th>
                <td>{(now[r] ?? 0).toFixed(3)}</td>
                <td className={Math.abs((after[r] ?? 0) - (now[r] ?? 0)) > 1e-9 ? 'changed' : undefined}>{(after[r] ?? 0).toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function useInvalidateRoles() {
  const queryClient = useQueryClient();
  return () => Promise.all([keys.roles, keys.cluster].map((k) => queryClient.invalidateQueries({ queryKey: k })));
}

function EditRole({
  role,
  open,
  onClose,
}: {
  role: Role | { path: string; weight: number; quota: null };
  open: boolean;
  onClose: () => void;
}) {
  const topLevel = !role.path.includes('/');
  const [weight, setWeight] = useState(String(role.weight));
  const [guarantees, setGuarantees] = useState(asText(role.quota?.guarantees));
  const [limits, setLimits] = useState(asText(role.quota?.limits));
  const [force, setForce] = useState(false);
  const invalidate = useInvalidateRoles();
  const toast = useToast();
  const num = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
  const save = useMutation({
    mutationFn: async () => {
      if (String(role.weight) !== weight.trim())
        await call(api.PUT('/api/v1/weights', { body: { weights: [{ role: role.path, weight: num(weight) as number }] } }));
      const quotaChanged = guarantees.trim() !== asText(role.quota?.guarantees) || limits.trim() !== asText(role.quota?.limits);
      if (topLevel && quotaChanged) {
        await call(
          api.PUT('/api/v1/quota', {
            body: {
              quotas: [
                {
                  role: role.path,
                  ...(guarantees.trim() ? { guarantees: guarantees.trim() } : {}),
                  ...(limits.trim() ? { limits: limits.trim() } : {}),
                },
              ],
              force,
            },
          }),
        );
      }
    },
    onSuccess: async () => {
      await invalidate();
      toast(`role ${role.path} saved`);
      onClose();
    },
  });
  const err = save.error;
  const errors = {
    weight: fieldError(err, 'weight', ['ROLE_REPEATED']),
    guarantees: fieldError(err, 'guarantees', ['QUOTA_EXCEEDS_CAPACITY', 'QUOTA_HIERARCHY_VIOLATION']),
    limits: fieldError(err, 'limits', ['QUOTA_GUARANTEE_EXCEEDS_LIMIT']),
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Dialog open={open} onClose={onClose} title={`Edit role ${role.path}`}>
      <form onSubmit={submit} noValidate>
        <h2>Role {role.path}</h2>
        <Field label="Weight" error={errors.weight} hint="shares are divided by the weight: 2 gets twice the share of 1">
          {(p) => <input {...p} name="weight" inputMode="decimal" value={weight} onChange={(e) => setWeight(e.target.value)} />}
        </Field>
        {topLevel ? (
          <>
            <Field label="Quota guarantees" error={errors.guarantees} hint='scalars, e.g. "cpus:4;mem:8192"; empty: none'>
              {(p) => (
                <input
                  {...p}
                  name="guarantees"
                  value={guarantees}
                  onChange={(e) => setGuarantees(e.target.value)}
                  placeholder="cpus:4;mem:8192"
                />
              )}
            </Field>
            <Field label="Quota limits" error={errors.limits} hint="a resource not named is unlimited">
              {(p) => (
                <input {...p} name="limits" value={limits} onChange={(e) => setLimits(e.target.value)} placeholder="cpus:8;mem:16384" />
              )}
            </Field>
            <label>
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Accept guarantees beyond the
              cluster&apos;s capacity
            </label>
          </>
        ) : (
          <p className="muted">Quotas apply to top-level roles; set this role&apos;s on {role.path.split('/')[0]}.</p>
        )}
        <WhatIf
          change={() => {
            const quotaChanged = guarantees.trim() !== asText(role.quota?.guarantees) || limits.trim() !== asText(role.quota?.limits);
            return {
              ...(String(role.weight) !== weight.trim() ? { weights: { [role.path]: num(weight) } } : {}),
              ...(topLevel && quotaChanged
                ? {
                    quotas: {
                      [role.path]:
                        guarantees.trim() || limits.trim()
                          ? { guarantees: asQuantities(guarantees), ...(limits.trim() ? { limits: asQuantities(limits) } : {}) }
                          : null,
                    },
                  }
                : {}),
            };
          }}
        />
        <ActionError error={formError(err, Object.values(errors))} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RoleActions({ role }: { role: Role }) {
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const invalidate = useInvalidateRoles();
  const toast = useToast();
  return (
    <div className="actions">
      <button type="button" className="small" onClick={() => setEditing(true)}>
        Edit
      </button>
      {role.quota ? (
        <button type="button" className="small danger" onClick={() => setRemoving(true)}>
          Remove quota
        </button>
      ) : null}
      {editing ? <EditRole role={role} open onClose={() => setEditing(false)} /> : null}
      <ActionDialog
        open={removing}
        onClose={() => setRemoving(false)}
        title={`Remove the quota of ${role.path}?`}
        confirmLabel="Remove quota"
        danger
        onConfirm={async () => {
          await call(api.DELETE('/api/v1/quota/{role}', { params: { path: { role: role.path } } }));
          await invalidate();
          toast(`quota of ${role.path} removed`);
        }}
      >
        <p>
          The role loses its guarantee ({scalars(role.quota?.guarantees)}) and its limit ({scalars(role.quota?.limits)}).
        </p>
      </ActionDialog>
    </div>
  );
}

export function RolesView() {
  const roles = useQuery(q.roles());
  const [adding, setAdding] = useState<string | null>(null);
  const [newRole, setNewRole] = useState('');
  useLiveInvalidate(['framework.added', 'framework.removed', 'task.updated', 'offer.created', 'offer.closed'], [keys.roles], 3000);
  const c = columnsFor<Role>();
  const columns = c.columns([
    c.accessor('path', {
      header: 'Role',
      cell: (i) => {
        const depth = i.getValue().split('/').length - 1;
        return (
          <span style={{ paddingLeft: depth * 18 }} className="nowrap">
            {depth ? <span className="muted">└ </span> : null}
            <strong>{i.getValue().split('/').at(-1)}</strong>
            {depth ? <span className="muted"> ({i.getValue()})</span> : null}
          </span>
        );
      },
    }),
    c.accessor('weight', {
      header: 'Weight',
      meta: { align: 'right' },
      cell: (i) => (i.getValue() === 1 ? <span className="muted">1</span> : <strong>{trim(i.getValue())}</strong>),
    }),
    c.display({ id: 'quota', header: 'Quota (held against guarantee and limit)', cell: (i) => <QuotaBars role={i.row.original} /> }),
    c.accessor('allocated', { header: 'Holds', cell: (i) => scalars(i.getValue()) }),
    c.accessor('reserved', { header: 'Reserved', cell: (i) => scalars(i.getValue()) }),
    c.accessor('frameworks', {
      header: 'Frameworks',
      meta: { align: 'right' },
      cell: (i) => (i.getValue().length ? <Badge tone="info">{i.getValue().length}</Badge> : <span className="muted">0</span>),
    }),
    c.display({ id: 'actions', header: '', cell: (i) => <RoleActions role={i.row.original} /> }),
  ]);
  return (
    <>
      <PageHeader
        title="Roles"
        description="Roles form a tree (eng/ml is under eng). Weights divide shares; quotas guarantee a top-level role resources and cap what it holds (tasks and outstanding offers)."
      />
      <Panel title="Set a role">
        <form
          className="form-row"
          onSubmit={(e) => {
            e.preventDefault();
            if (newRole.trim()) setAdding(newRole.trim());
          }}
        >
          <Field label="Role" hint="any role path, e.g. analytics or eng/ml">
            {(p) => <input {...p} value={newRole} onChange={(e) => setNewRole(e.target.value)} placeholder="analytics" />}
          </Field>
          <button type="submit" disabled={!newRole.trim()}>
            Set weight or quota
          </button>
        </form>
        {adding ? (
          <EditRole
            key={adding}
            role={roles.data?.find((r) => r.path === adding) ?? { path: adding, weight: 1, quota: null }}
            open
            onClose={() => setAdding(null)}
          />
        ) : null}
      </Panel>
      {roles.error ? (
        <ErrorPanel error={roles.error} onRetry={() => void roles.refetch()} />
      ) : roles.data ? (
        <DataTable
          label="Roles"
          columns={columns}
          data={roles.data}
          getRowId={(r) => r.path}
          empty="No role yet: roles appear when frameworks subscribe to them or an operator sets a weight or quota."
        />
      ) : (
        <Loading rows={6} />
      )}
    </>
  );
}
