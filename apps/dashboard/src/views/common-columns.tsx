'use client';
/** Columns that several pages show: tasks, offers, reservations. */
import { Link } from '@/lib/navigation';
import { When } from '@/components/when';
import { columnsFor } from '@/components/table';
import { Badge, Field, type Tone } from '@/components/ui';
import type { Schemas } from '@/lib/api';
import { shortId } from '@/lib/format';

type Task = Schemas['TaskDto'];
type Offer = Schemas['OfferDto'];

export { TASK_STATES } from '@arbiter/contracts/task-states';

export function taskTone(state: string): Tone {
  if (state === 'RUNNING' || state === 'FINISHED') return 'ok';
  if (['FAILED', 'LOST', 'ERROR', 'DROPPED', 'GONE'].includes(state)) return 'bad';
  if (['KILLED', 'KILLING', 'UNREACHABLE', 'GONE_BY_OPERATOR', 'UNKNOWN'].includes(state)) return 'warn';
  return 'info';
}

export function TaskStateBadge({ state }: { state: string }) {
  return <Badge tone={taskTone(state)}>{state}</Badge>;
}

/** What the task's health check said last; nothing when it has none (or none answered yet). */
export function TaskHealthBadge({ healthy }: { healthy: boolean | null }) {
  if (healthy === null) return <span className="muted">—</span>;
  return <Badge tone={healthy ? 'ok' : 'bad'}>{healthy ? 'healthy' : 'unhealthy'}</Badge>;
}

export function taskColumns(
  names: Record<string, string> = {},
  options: { agent?: boolean; framework?: boolean } = { agent: true, framework: true },
) {
  const c = columnsFor<Task>();
  return c.columns([
    c.accessor('taskId', {
      header: 'Task',
      cell: (i) => (
        <>
          <Link href={`/tasks/${i.row.original.id}`} onClick={(e) => e.stopPropagation()}>
            {i.getValue()}
          </Link>
          {i.row.original.resources.some((r) => r.revocable) ? (
            <>
              {' '}
              <Badge tone="info">revocable</Badge>
            </>
          ) : null}
        </>
      ),
    }),
    c.accessor('state', { header: 'State', cell: (i) => <TaskStateBadge state={i.getValue()} /> }),
    c.accessor('healthy', { header: 'Health', cell: (i) => <TaskHealthBadge healthy={i.getValue()} /> }),
    ...(options.framework
      ? [
          c.accessor('frameworkId', {
            header: 'Framework',
            cell: (i) => (
              <Link href={`/frameworks/${i.getValue()}`} onClick={(e) => e.stopPropagation()}>
                {names[i.getValue()] ?? shortId(i.getValue())}
              </Link>
            ),
          }),
        ]
      : []),
    c.accessor('role', { header: 'Role' }),
    ...(options.agent
      ? [
          c.accessor('agentId', {
            header: 'Agent',
            cell: (i) => (
              <Link href={`/agents/${encodeURIComponent(i.getValue())}`} onClick={(e) => e.stopPropagation()}>
                {shortId(i.getValue())}
              </Link>
            ),
          }),
        ]
      : []),
    c.accessor('resourcesText', { header: 'Resources', cell: (i) => <code>{i.getValue()}</code> }),
    c.accessor('updatedAt', { header: 'Updated', cell: (i) => <When at={i.getValue()} as="ago" /> }),
  ]);
}

export function offerColumns(names: Record<string, string> = {}) {
  const c = columnsFor<Offer>();
  return c.columns([
    c.accessor('id', { header: 'Offer', cell: (i) => <code title={i.getValue()}>{shortId(i.getValue())}</code> }),
    c.accessor('frameworkId', {
      header: 'Framework',
      cell: (i) => <Link href={`/frameworks/${i.getValue()}`}>{names[i.getValue()] ?? shortId(i.getValue())}</Link>,
    }),
    c.accessor('agentId', {
      header: 'Agent',
      cell: (i) => <Link href={`/agents/${encodeURIComponent(i.getValue())}`}>{shortId(i.getValue())}</Link>,
    }),
    c.accessor('role', { header: 'Role' }),
    c.accessor('resourcesText', { header: 'Resources', cell: (i) => <code>{i.getValue()}</code> }),
    c.accessor('state', {
      header: 'State',
      cell: (i) => (
        <Badge tone={i.getValue() === 'ACCEPTED' ? 'ok' : i.getValue() === 'OUTSTANDING' ? 'info' : 'none'}>
          {i.getValue().toLowerCase()}
        </Badge>
      ),
    }),
    c.accessor('createdAt', { header: 'Made', cell: (i) => <When at={i.getValue()} as="ago" /> }),
  ]);
}

/** A labelled choice among the known frameworks (by name); '' is `none`. */
export function FrameworkSelect({
  label,
  value,
  onChange,
  names,
  none = 'any',
}: {
  label: string;
  value: string;
  onChange: (id: string) => void;
  names?: Record<string, string>;
  none?: string;
}) {
  return (
    <Field label={label}>
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{none}</option>
          {Object.entries(names ?? {}).map(([id, name]) => (
            <option key={id} value={id}>
              {name} ({shortId(id)})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
