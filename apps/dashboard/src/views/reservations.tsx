'use client';
/** Reservations: list (by role), create (agent, role, resources, labels), remove. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@/lib/navigation';
import { type SubmitEvent, useDeferredValue, useEffect, useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { When } from '@/components/when';
import { columnsFor, DataTable } from '@/components/table';
import { useToast } from '@/components/toast';
import { ActionError, ErrorPanel, Field, Loading, PageHeader, Pager, Panel } from '@/components/ui';
import { api, call, fieldError, formError, type Schemas } from '@/lib/api';
import { shortId } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { LIST_LIMIT } from '@/lib/pages';
import { keys, q } from '@/lib/queries';

type Reservation = Schemas['ReservationDto'];

function useInvalidateReservations() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([keys.reservations, keys.agents, keys.roles, keys.cluster].map((k) => queryClient.invalidateQueries({ queryKey: k })));
}

function RemoveButton({ r }: { r: Reservation }) {
  const [open, setOpen] = useState(false);
  const invalidate = useInvalidateReservations();
  const toast = useToast();
  return (
    <>
      <button type="button" className="small danger" onClick={() => setOpen(true)}>
        Remove
      </button>
      <ActionDialog
        open={open}
        onClose={() => setOpen(false)}
        title="Remove this reservation?"
        confirmLabel="Unreserve"
        danger
        onConfirm={async () => {
          await call(api.DELETE('/api/v1/reservations/{id}', { params: { path: { id: r.id } } }));
          await invalidate();
          toast(`unreserved ${r.resourcesText} of role ${r.role}`);
        }}
      >
        <p>
          <code>{r.resourcesText}</code> on agent <code>{shortId(r.agentId)}</code> go back to the unreserved pool, offered to any role.
          Refused while role <strong>{r.role}</strong> uses them.
        </p>
      </ActionDialog>
    </>
  );
}

export function ReservationsTable({ agentId, role }: { agentId?: string; role?: string }) {
  const [offset, setOffset] = useState(0);
  const list = useQuery(q.reservations({ agentId, role: role || undefined, limit: LIST_LIMIT, offset }));
  useLiveInvalidate(['agent.updated'], [keys.reservations]);
  const c = columnsFor<Reservation>();
  const columns = c.columns([
    c.accessor('role', { header: 'Role' }),
    c.accessor('resourcesText', { header: 'Resources', cell: (i) => <code>{i.getValue()}</code> }),
    ...(agentId
      ? []
      : [
          c.accessor('agentId', {
            header: 'Agent',
            cell: (i) => <Link href={`/agents/${encodeURIComponent(i.getValue())}`}>{shortId(i.getValue())}</Link>,
          }),
        ]),
    c.accessor('labels', {
      header: 'Labels',
      cell: (i) =>
        Object.entries(i.getValue())
          .map(([k, v]) => `${k}=${v}`)
          .join(', ') || '—',
    }),
    c.accessor('principal', { header: 'By' }),
    c.accessor('createdAt', { header: 'Created', cell: (i) => <When at={i.getValue()} as="ago" /> }),
    c.display({ id: 'remove', header: '', cell: (i) => <RemoveButton r={i.row.original} /> }),
  ]);
  if (list.error) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  return (
    <>
      <DataTable label="Reservations" columns={columns} data={list.data.items} getRowId={(r) => r.id} empty="No reservation." />
      {list.data.total > LIST_LIMIT ? <Pager total={list.data.total} limit={LIST_LIMIT} offset={offset} onChange={setOffset} /> : null}
    </>
  );
}

/** Picks an agent by hostname (searched in the API as the operator types). */
export function AgentPicker({ value, onChange, error }: { value: string; onChange: (id: string) => void; error?: string }) {
  const [text, setText] = useState('');
  const search = useDeferredValue(text.trim());
  const found = useQuery(q.agentSearch(search));
  const options = found.data?.items ?? [];
  const match = options.find((a) => a.hostname === text.trim() || a.id === text.trim())?.id ?? '';
  useEffect(() => {
    if (match !== value) onChange(match);
  }, [match, value, onChange]);
  return (
    <Field
      label="Agent"
      error={error}
      hint={
        value ? (
          <>
            id <code>{value}</code>
          </>
        ) : (
          'type part of a hostname, then choose'
        )
      }
    >
      {(p) => (
        <>
          <input
            {...p}
            list="agent-options"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="hostname"
            required
            autoComplete="off"
          />
          <datalist id="agent-options">
            {options.map((a) => (
              <option key={a.id} value={a.hostname}>
                {a.resourcesText}
              </option>
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}

function CreateReservation() {
  const [agentId, setAgentId] = useState('');
  const [role, setRole] = useState('');
  const [resources, setResources] = useState('');
  const [labels, setLabels] = useState('');
  const invalidate = useInvalidateReservations();
  const toast = useToast();
  const create = useMutation({
    mutationFn: async () => {
      const parsed = Object.fromEntries(
        labels
          .split(/[;,\n]/)
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const [k, ...v] = l.split('=');
            return [k.trim(), v.join('=').trim()];
          }),
      );
      return call(
        api.POST('/api/v1/reservations', {
          body: { agentId, role: role.trim(), resources: resources.trim(), ...(Object.keys(parsed).length ? { labels: parsed } : {}) },
        }),
      );
    },
    onSuccess: async (r) => {
      await invalidate();
      toast(`reserved ${r.resourcesText} for ${r.role}`);
      setResources('');
    },
  });
  const err = create.error;
  const errors = {
    agentId: fieldError(err, 'agentId', ['AGENT_NOT_FOUND', 'AGENT_GONE']),
    role: fieldError(err, 'role'),
    resources: fieldError(err, 'resources', ['RESERVATION_INSUFFICIENT_RESOURCES']),
    labels: fieldError(err, 'labels'),
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Create a reservation" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div className="form-row">
        <AgentPicker
          value={agentId}
          onChange={setAgentId}
          error={errors.agentId ?? (create.isError && !agentId ? 'choose an agent from the list' : undefined)}
        />
        <Field label="Role" error={errors.role}>
          {(p) => <input {...p} value={role} onChange={(e) => setRole(e.target.value)} placeholder="eng/ml" required />}
        </Field>
        <Field label="Resources" error={errors.resources} hint='e.g. "cpus:2;mem:4096"'>
          {(p) => <input {...p} value={resources} onChange={(e) => setResources(e.target.value)} placeholder="cpus:2;mem:4096" required />}
        </Field>
        <Field label="Labels" error={errors.labels} hint="key=value, separated by commas">
          {(p) => <input {...p} value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="team=ml" />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Reserving…' : 'Reserve'}
        </button>
      </div>
      <ActionError error={formError(err, Object.values(errors))} />
    </form>
  );
}

export function ReservationsView() {
  const [role, setRole] = useState('');
  const filter = useDeferredValue(role.trim());
  return (
    <>
      <PageHeader
        title="Reservations"
        description="Resources set aside on an agent for one role: offered only to that role, used or not."
      />
      <Panel title="Reserve">
        <CreateReservation />
      </Panel>
      <Panel
        title="Reservations"
        actions={
          <Field label="Role">
            {(p) => <input {...p} type="search" value={role} onChange={(e) => setRole(e.target.value)} placeholder="any role" />}
          </Field>
        }
      >
        <ReservationsTable role={filter} />
      </Panel>
    </>
  );
}
