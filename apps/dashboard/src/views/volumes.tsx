'use client';
/** Persistent volumes: list (by agent and role: id, size, disk, creator, users), create on reserved disk, destroy with confirmation. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@/lib/navigation';
import { type SubmitEvent, useDeferredValue, useState } from 'react';
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
import { AgentPicker } from './reservations';

type Volume = Schemas['PersistentVolumeDto'];

function useInvalidateVolumes() {
  const queryClient = useQueryClient();
  return () => Promise.all([keys.volumes, keys.agents, keys.reservations].map((k) => queryClient.invalidateQueries({ queryKey: k })));
}

const diskOf = (v: Volume) => (v.source ? `${v.source.type} ${v.source.root}` : 'root disk');

function DestroyButton({ v }: { v: Volume }) {
  const [open, setOpen] = useState(false);
  const invalidate = useInvalidateVolumes();
  const toast = useToast();
  return (
    <>
      <button type="button" className="small danger" onClick={() => setOpen(true)} disabled={(v.inUseBy ?? []).length > 0}>
        Destroy
      </button>
      <ActionDialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Destroy volume ${v.persistenceId}?`}
        confirmLabel="Destroy volume and data"
        danger
        onConfirm={async () => {
          await call(api.DELETE('/api/v1/volumes/{id}', { params: { path: { id: v.id } } }));
          await invalidate();
          toast(`destroyed volume ${v.persistenceId} of role ${v.role}`);
        }}
      >
        <p>
          Its data on agent <code>{shortId(v.agentId)}</code> (<code>{v.hostPath ?? '—'}</code>) is removed for good, and its {v.disk} MB go
          back to role <strong>{v.role}</strong> as reserved disk. Refused while a task uses it.
        </p>
      </ActionDialog>
    </>
  );
}

export function VolumesTable({ agentId, role }: { agentId?: string; role?: string }) {
  const [offset, setOffset] = useState(0);
  const list = useQuery(q.volumes({ agentId, role: role || undefined, limit: LIST_LIMIT, offset }));
  useLiveInvalidate(['agent.updated'], [keys.volumes]);
  const c = columnsFor<Volume>();
  const columns = c.columns([
    c.accessor('persistenceId', { header: 'Volume', cell: (i) => <code>{i.getValue()}</code> }),
    c.accessor('role', { header: 'Role' }),
    c.accessor('disk', { header: 'Size', cell: (i) => `${i.getValue()} MB` }),
    c.display({ id: 'source', header: 'Disk', cell: (i) => diskOf(i.row.original) }),
    c.display({ id: 'path', header: 'Seen at', cell: (i) => <code>{`${i.row.original.containerPath} (${i.row.original.mode})`}</code> }),
    ...(agentId
      ? []
      : [
          c.accessor('agentId', {
            header: 'Agent',
            cell: (i) => <Link href={`/agents/${encodeURIComponent(i.getValue())}`}>{shortId(i.getValue())}</Link>,
          }),
        ]),
    c.accessor('principal', { header: 'Created by' }),
    c.display({
      id: 'users',
      header: 'In use by',
      cell: (i) =>
        (i.row.original.inUseBy ?? []).length
          ? (i.row.original.inUseBy ?? []).map((f) => (
              <Link key={f} href={`/frameworks/${encodeURIComponent(f)}`}>
                {shortId(f)}{' '}
              </Link>
            ))
          : '—',
    }),
    c.accessor('createdAt', { header: 'Created', cell: (i) => <When at={i.getValue()} as="ago" /> }),
    c.display({ id: 'destroy', header: '', cell: (i) => <DestroyButton v={i.row.original} /> }),
  ]);
  if (list.error) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;
  return (
    <>
      <DataTable label="Volumes" columns={columns} data={list.data.items} getRowId={(v) => v.id} empty="No volume." />
      {list.data.total > LIST_LIMIT ? <Pager total={list.data.total} limit={LIST_LIMIT} offset={offset} onChange={setOffset} /> : null}
    </>
  );
}

function CreateVolume() {
  const [agentId, setAgentId] = useState('');
  const [role, setRole] = useState('');
  const [persistenceId, setPersistenceId] = useState('');
  const [disk, setDisk] = useState('');
  const [containerPath, setContainerPath] = useState('data');
  const [mode, setMode] = useState<'RW' | 'RO'>('RW');
  const invalidate = useInvalidateVolumes();
  const toast = useToast();
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/volumes', {
          body: {
            agentId,
            role: role.trim(),
            persistenceId: persistenceId.trim(),
            disk: Number(disk),
            containerPath: containerPath.trim(),
            mode,
          },
        }),
      ),
    onSuccess: async (v) => {
      await invalidate();
      toast(`created volume ${v.persistenceId} (${v.disk} MB) for ${v.role}`);
      setPersistenceId('');
    },
  });
  const err = create.error;
  const errors = {
    agentId: fieldError(err, 'agentId', ['AGENT_NOT_FOUND', 'AGENT_GONE', 'VOLUME_AGENT_UNREACHABLE']),
    role: fieldError(err, 'role'),
    persistenceId: fieldError(err, 'persistenceId', ['VOLUME_EXISTS']),
    disk: fieldError(err, 'disk', ['VOLUME_INSUFFICIENT_DISK']),
    containerPath: fieldError(err, 'containerPath'),
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Create a volume" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div className="form-row">
        <AgentPicker
          value={agentId}
          onChange={setAgentId}
          error={errors.agentId ?? (create.isError && !agentId ? 'choose an agent from the list' : undefined)}
        />
        <Field label="Role" error={errors.role} hint="its reserved disk is used">
          {(p) => <input {...p} value={role} onChange={(e) => setRole(e.target.value)} placeholder="db" required />}
        </Field>
        <Field label="Volume id" error={errors.persistenceId}>
          {(p) => <input {...p} value={persistenceId} onChange={(e) => setPersistenceId(e.target.value)} placeholder="data-1" required />}
        </Field>
        <Field label="Size (MB)" error={errors.disk}>
          {(p) => <input {...p} type="number" min={1} value={disk} onChange={(e) => setDisk(e.target.value)} placeholder="512" required />}
        </Field>
        <Field label="Container path" error={errors.containerPath}>
          {(p) => <input {...p} value={containerPath} onChange={(e) => setContainerPath(e.target.value)} required />}
        </Field>
        <Field label="Mode">
          {(p) => (
            <select {...p} value={mode} onChange={(e) => setMode(e.target.value === 'RO' ? 'RO' : 'RW')}>
              <option value="RW">RW</option>
              <option value="RO">RO</option>
            </select>
          )}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create'}
        </button>
      </div>
      <ActionError error={formError(err, Object.values(errors))} />
    </form>
  );
}

export function VolumesView() {
  const [role, setRole] = useState('');
  const [agent, setAgent] = useState('');
  const filter = useDeferredValue(role.trim());
  return (
    <>
      <PageHeader
        title="Volumes"
        description="Persistent volumes: disk reserved for a role, kept on its agent outside every sandbox, offered back to the role with its id. Their data outlives the tasks that use them."
      />
      <Panel title="Create a volume">
        <CreateVolume />
      </Panel>
      <Panel
        title="Volumes"
        actions={
          <div className="form-row">
            <Field label="Role">
              {(p) => <input {...p} type="search" value={role} onChange={(e) => setRole(e.target.value)} placeholder="any role" />}
            </Field>
            <Field label="Agent id">
              {(p) => (
                <input {...p} type="search" value={agent} onChange={(e) => setAgent(e.target.value.trim())} placeholder="any agent" />
              )}
            </Field>
          </div>
        }
      >
        <VolumesTable role={filter} agentId={agent || undefined} />
      </Panel>
    </>
  );
}
