'use client';
/** Tasks: filtered by state, framework, reason and agent; one task with every state it went through. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { useToast } from '@/components/toast';
import { isTerminalTaskState } from '@arbiter/contracts/task-states';
import { Link, useNavigate } from '@/lib/navigation';
import { When } from '@/components/when';
import { columnsFor, DataTable } from '@/components/table';
import { ErrorPanel, Field, Loading, PageHeader, Pager, Panel } from '@/components/ui';
import { api, call, type Schemas } from '@/lib/api';
import { useLiveInvalidate } from '@/lib/live';
import { EVICTION_REASON, TASK_FILTERS, tasksQuery } from '@/lib/pages';
import { frameworkNames, keys, q } from '@/lib/queries';
import { useUrlState } from '@/lib/use-url-state';
import { FrameworkSelect, TASK_STATES, TaskStateBadge, taskColumns } from './common-columns';
import { ContainerPanel } from './containers';
import { DiscoveryRows, TaskFieldRows } from './task-fields';
import { TaskSandbox } from './task-sandbox';

/** The reasons operators look for most: why the task reached its current state. */
const TASK_REASONS = [
  EVICTION_REASON,
  'REASON_COMMAND_EXITED',
  'REASON_CONTAINER_LIMITATION_MEMORY',
  'REASON_CONTAINER_LIMITATION_DISK',
  'REASON_CONTAINER_LAUNCH_FAILED',
  'REASON_MAX_COMPLETION_TIME_REACHED',
  'REASON_AGENT_REMOVED',
  'REASON_AGENT_DRAINING',
  'REASON_FRAMEWORK_REMOVED',
  'REASON_TASK_KILLED_DURING_LAUNCH',
];

export function TasksView() {
  const navigate = useNavigate();
  const [f, setF] = useUrlState(TASK_FILTERS);
  const query = tasksQuery(f);
  const names = useQuery(frameworkNames());
  const list = useQuery({ ...q.tasks(query), placeholderData: (p) => p });
  useLiveInvalidate(['task.updated'], [keys.tasks], 1500);
  return (
    <>
      <PageHeader title="Tasks" description="Every task launched, newest first. Open one to see each state it went through." />
      <div className="filters" role="search">
        <Field label="State">
          {(p) => (
            <select {...p} value={f.state} onChange={(e) => setF({ state: e.target.value, offset: '' })}>
              <option value="">any</option>
              {TASK_STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
        <FrameworkSelect
          label="Framework"
          value={f.frameworkId}
          names={names.data}
          onChange={(id) => setF({ frameworkId: id, offset: '' })}
        />
        <Field label="Reason">
          {(p) => (
            <select {...p} value={f.reason} onChange={(e) => setF({ reason: e.target.value, offset: '' })}>
              <option value="">any</option>
              {[...new Set([...TASK_REASONS, ...(f.reason ? [f.reason] : [])])].map((r) => (
                <option key={r} value={r}>
                  {r === EVICTION_REASON ? `${r} (evicted)` : r}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Agent id">
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
      </div>
      {list.error ? <ErrorPanel error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.data ? (
        <>
          <DataTable
            label="Tasks"
            columns={taskColumns(names.data)}
            data={list.data.items}
            getRowId={(t) => t.id}
            onRowClick={(t) => navigate(`/tasks/${t.id}`)}
            empty="No task matches."
          />
          <Pager
            total={list.data.total}
            capped={list.data.totalCapped}
            limit={query.limit}
            offset={query.offset}
            onChange={(o) => setF({ offset: o ? String(o) : '' })}
          />
        </>
      ) : list.error ? null : (
        <Loading rows={6} />
      )}
    </>
  );
}

type Status = Schemas['TaskStatusDto'];
const historyColumns = (() => {
  const c = columnsFor<Status>();
  return c.columns([
    c.accessor('at', { header: 'At', cell: (i) => <When at={i.getValue()} /> }),
    c.accessor('state', { header: 'State', cell: (i) => <TaskStateBadge state={i.getValue()} /> }),
    c.accessor('reason', { header: 'Reason', cell: (i) => (i.getValue() ? <code>{i.getValue()}</code> : '—') }),
    c.accessor('message', { header: 'Message', cell: (i) => i.getValue() ?? '—' }),
    c.accessor('source', { header: 'Source', cell: (i) => i.getValue().replace('SOURCE_', '').toLowerCase() }),
    c.accessor('acknowledgedAt', {
      header: 'Acknowledged',
      cell: (i) => (i.getValue() ? <When at={i.getValue()} /> : <span className="muted">not yet</span>),
    }),
  ]);
})();

/** Kills a task after a confirmation (SIGTERM, SIGKILL after the grace period); in a table row, without opening the row. */
export function KillButton({ task }: { task: Schemas['TaskDto'] }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const toast = useToast();
  if (isTerminalTaskState(task.state)) return null;
  return (
    // Clicks here (the button, the dialog) are not the row's.
    <span onClick={(e) => e.stopPropagation()}>
      <button type="button" className="danger" aria-label={`Kill ${task.taskId}`} onClick={() => setOpen(true)}>
        Kill
      </button>
      <ActionDialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Kill task ${task.taskId}?`}
        confirmLabel="Kill"
        danger
        onConfirm={async () => {
          await call(api.POST('/api/v1/tasks/{id}/kill', { params: { path: { id: task.id } }, body: {} }));
          await queryClient.invalidateQueries({ queryKey: keys.tasks });
          toast(`kill sent to task ${task.taskId}`);
        }}
      >
        <p>Its processes get SIGTERM, then SIGKILL after 5 s; its framework is told it was KILLED. The framework may launch it again.</p>
      </ActionDialog>
    </span>
  );
}

export function TaskDetailView({ id }: { id: string }) {
  const task = useQuery(q.task(id));
  const names = useQuery(frameworkNames());
  useLiveInvalidate(['task.updated'], [[...keys.tasks, 'one', id]], 1000);
  if (task.error) return <ErrorPanel error={task.error} onRetry={() => void task.refetch()} />;
  if (!task.data) return <Loading rows={8} />;
  const t = task.data;
  return (
    <>
      <PageHeader
        title={`Task ${t.taskId}`}
        description={
          <>
            {t.name} · row id <code>{t.id}</code>
          </>
        }
        actions={<KillButton task={t} />}
      />
      <Panel title="Task">
        <dl className="props">
          <dt>State</dt>
          <dd>
            <TaskStateBadge state={t.state} />
          </dd>
          <dt>Framework</dt>
          <dd>
            <Link href={`/frameworks/${t.frameworkId}`}>{names.data?.[t.frameworkId] ?? t.frameworkId}</Link>
          </dd>
          <dt>Agent</dt>
          <dd>
            <Link href={`/agents/${encodeURIComponent(t.agentId)}`}>{t.agentId}</Link>
          </dd>
          <dt>Role</dt>
          <dd>{t.role}</dd>
          <dt>Resources</dt>
          <dd>
            <code>{t.resourcesText}</code>
          </dd>
          <dt>Launched</dt>
          <dd>
            <When at={t.createdAt} />
          </dd>
          <dt>Last change</dt>
          <dd>
            <When at={t.updatedAt} />
          </dd>
          <TaskFieldRows task={t} />
        </dl>
      </Panel>
      <ContainerPanel task={t} />
      {t.discovery ? (
        <Panel title="Service discovery">
          <DiscoveryRows discovery={t.discovery} />
        </Panel>
      ) : null}
      <TaskSandbox task={t} />
      <Panel title="State history">
        <DataTable
          label="State history"
          columns={historyColumns}
          data={t.history ?? []}
          getRowId={(s) => `${s.at}-${s.state}-${s.source}`}
          empty="No status update recorded yet."
        />
      </Panel>
    </>
  );
}
