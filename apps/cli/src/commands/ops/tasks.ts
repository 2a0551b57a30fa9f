/**
 * Tasks from the operator's terminal:
 *   arbiter tasks list [--state S] [--framework ID] [--agent ID] [--limit N] [--watch]
 *   arbiter tasks show TASK_ID [--watch]     with --watch: until the task has ended
 *   arbiter task kill TASK_ID [--grace SECONDS] [--wait]
 * TASK_ID is the task's id in the API (the first column of `tasks list`).
 */
import type { Schema } from '@arbiter/contracts';
import { isTerminalTaskState } from '@arbiter/contracts/task-states';
import type { Command } from 'commander';
import { action, ago, connect, connectionOptions, enc, intFlag, type OutputFlags, query, watchOptions } from '../../ops/output';
import { type FollowFlags, followOption, TASK_EVENTS, view } from '../../ops/follow';
import { renderFields, renderTable } from '../../ops/table';

type Task = Schema<'TaskDto'>;
type TaskPage = Schema<'TaskPageDto'>;

export function tasksTable(tasks: readonly Task[]): string {
  return renderTable<Task>(
    [
      { header: 'id', value: (t) => t.id },
      { header: 'name', value: (t) => t.name },
      { header: 'state', value: (t) => t.state },
      { header: 'framework', value: (t) => t.frameworkId },
      { header: 'agent', value: (t) => t.agentId },
      { header: 'role', value: (t) => t.role },
      { header: 'resources', value: (t) => t.resourcesText },
      { header: 'updated', value: (t) => ago(t.updatedAt) },
    ],
    tasks,
  );
}

export function taskFields(t: Task): string {
  const head = renderFields([
    ['ID', t.id],
    ['Task ID', t.taskId],
    ['Name', t.name],
    ['State', t.state],
    ['Framework', t.frameworkId],
    ['Agent', t.agentId],
    ['Role', t.role],
    ['Resources', t.resourcesText],
    ['Image', t.containerImage?.reference ?? t.container?.image?.name],
    ['Healthy', t.healthy],
    ['Created', t.createdAt],
    ['Updated', `${t.updatedAt} (${ago(t.updatedAt)} ago)`],
  ]);
  if (!t.history?.length) return head;
  const history = renderTable(
    [
      { header: 'at', value: (s: Schema<'TaskStatusDto'>) => s.at },
      { header: 'state', value: (s) => s.state },
      { header: 'source', value: (s) => s.source },
      { header: 'reason', value: (s) => s.reason },
      { header: 'message', value: (s) => s.message },
    ],
    t.history,
  );
  return `${head}\n\n${history}`;
}

interface ListFlags extends FollowFlags {
  state?: string;
  framework?: string;
  agent?: string;
  limit?: string;
}

interface KillFlags extends OutputFlags {
  grace?: string;
  wait?: boolean;
}

const taskPath = (id: string) => `/api/v1/tasks/${enc(id)}`;
const ended = (t: Task) => isTerminalTaskState(t.state);

/** The state name without its TASK_ prefix, upper-cased (the API's spelling). */
const stateName = (s: string) => s.toUpperCase().replace(/^TASK_/, '');

export function registerTasks(program: Command): void {
  const tasks = program.command('tasks').description('tasks of the cluster: list them, or show one with its state history');
  watchOptions(
    followOption(tasks.command('list'))
      .description('the tasks, newest first')
      .option('--state <state>', 'RUNNING, FINISHED, KILLED... (TASK_ prefix optional)')
      .option('--framework <id>', "a framework's tasks")
      .option('--agent <id>', "an agent's tasks")
      .option('--limit <n>', 'at most this many (default 100, at most 500)'),
  ).action(
    action(async (flags: ListFlags) => {
      const client = await connect(flags);
      const q = query({
        state: flags.state === undefined ? undefined : stateName(flags.state),
        frameworkId: flags.framework,
        agentId: flags.agent,
        limit: intFlag(flags.limit, '--limit', 1, 500) ?? 100,
      });
      await view(
        client,
        TASK_EVENTS,
        flags,
        () => client.call<TaskPage>('GET', `/api/v1/tasks${q}`),
        (page) =>
          `${tasksTable(page.items)}${page.total > page.items.length ? `\n(${page.items.length} of ${page.total}${page.totalCapped ? '+' : ''}: --limit shows more)` : ''}`,
      );
    }),
  );
  watchOptions(
    followOption(tasks.command('show'))
      .description('one task and its state history (--watch, --follow: until it has ended)')
      .argument('<task-id>'),
  ).action(
    action(async (id: string, flags: FollowFlags) => {
      const client = await connect(flags);
      await view(client, TASK_EVENTS, flags, () => client.call<Task>('GET', taskPath(id)), taskFields, ended);
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `arbiter task kill ID` beside `task logs|files`. */
export function registerTaskKill(task: Command): void {
  connectionOptions(
    task
      .command('kill')
      .description('kill a task: SIGTERM, then SIGKILL after the grace period; its framework is told KILLED')
      .argument('<task-id>', 'the task id of `arbiter tasks list`')
      .option('--grace <seconds>', "seconds between SIGTERM and SIGKILL (default: the task's own, else 5)")
      .option('--wait', 'wait until the task has ended and print its final state')
      .option('--json', 'print the task as the API answers it'),
  ).action(
    action(async (id: string, flags: KillFlags) => {
      const client = await connect(flags);
      const grace = intFlag(flags.grace, '--grace', 0, 3600);
      let t = await client.call<Task>('POST', `${taskPath(id)}/kill`, grace === undefined ? {} : { gracePeriodSeconds: grace });
      while (flags.wait && !ended(t)) {
        await sleep(200);
        t = await client.call<Task>('GET', taskPath(id));
      }
      if (flags.json) console.log(JSON.stringify(t, null, 2));
      else console.log(ended(t) ? `task ${t.id} (${t.name}) is ${t.state}` : `task ${t.id} (${t.name}) is ${t.state}: killing it`);
    }),
  );
}
