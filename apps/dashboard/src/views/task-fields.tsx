/** What a framework told about a task beyond its command: labels, service discovery, kill policy, max completion time, executor data; what its checks said. */
import type { Schemas } from '@/lib/api';
import { TaskHealthBadge } from './common-columns';

type Task = Schemas['TaskDto'];
type Label = Task['labels'][number];

const text = (l: Label) => (l.value === undefined ? l.key : `${l.key}=${l.value}`);

/** A general check's last result in words. */
function checkText(c: NonNullable<Task['checkStatus']>): string {
  if (c.type === 'COMMAND') return c.exitCode === undefined ? 'COMMAND: no result yet' : `COMMAND: exit code ${c.exitCode}`;
  if (c.type === 'HTTP') return c.statusCode === undefined ? 'HTTP: no answer' : `HTTP: status ${c.statusCode}`;
  return c.succeeded === undefined ? 'TCP: no result yet' : `TCP: ${c.succeeded ? 'connected' : 'could not connect'}`;
}

export function Labels({ labels }: { labels: Label[] | undefined }) {
  if (!labels?.length) return <span className="muted">none</span>;
  return (
    <span className="labels">
      {labels.map((l) => (
        <span key={text(l)} className="badge">
          {text(l)}
        </span>
      ))}
    </span>
  );
}

/** The task's fields as rows of its properties list. */
export function TaskFieldRows({ task }: { task: Task }) {
  return (
    <>
      <dt>Health</dt>
      <dd>
        <TaskHealthBadge healthy={task.healthy} />
      </dd>
      <dt>Check</dt>
      <dd>{task.checkStatus ? checkText(task.checkStatus) : <span className="muted">none</span>}</dd>
      <dt>Labels</dt>
      <dd>
        <Labels labels={task.labels} />
      </dd>
      <dt>Kill grace period</dt>
      <dd>{task.killGracePeriodSeconds === null ? <span className="muted">default (5 s)</span> : `${task.killGracePeriodSeconds} s`}</dd>
      <dt>Max completion time</dt>
      <dd>{task.maxCompletionTimeSeconds === null ? <span className="muted">none</span> : `${task.maxCompletionTimeSeconds} s`}</dd>
      <dt>Executor data</dt>
      <dd>{task.dataBytes === null ? <span className="muted">none</span> : `${task.dataBytes} bytes`}</dd>
    </>
  );
}

/** Service discovery as the framework gave it (Arbiter does not act on it). */
export function DiscoveryRows({ discovery }: { discovery: NonNullable<Task['discovery']> }) {
  const fields: Array<[string, string | undefined]> = [
    ['Visibility', discovery.visibility],
    ['Name', discovery.name],
    ['Environment', discovery.environment],
    ['Location', discovery.location],
    ['Version', discovery.version],
  ];
  return (
    <dl className="props">
      {fields.filter(([, v]) => v !== undefined).map(([k, v]) => [<dt key={`${k}-t`}>{k}</dt>, <dd key={`${k}-d`}>{v}</dd>])}
      <dt>Ports</dt>
      <dd>
        {discovery.ports?.length ? (
          <ul className="plain">
            {discovery.ports.map((p) => (
              <li key={`${p.number}-${p.protocol ?? ''}`}>
                <code>
                  {p.number}
                  {p.protocol ? `/${p.protocol}` : ''}
                </code>
                {p.name ? ` ${p.name}` : ''}
                {p.visibility ? ` (${p.visibility})` : ''} {p.labels?.length ? <Labels labels={p.labels} /> : null}
              </li>
            ))}
          </ul>
        ) : (
          <span className="muted">none</span>
        )}
      </dd>
      <dt>Labels</dt>
      <dd>
        <Labels labels={discovery.labels} />
      </dd>
    </dl>
  );
}
