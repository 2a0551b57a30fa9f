/**
 * The task-group example on the scheduler SDK: groups of tasks launched together (Mesos's
 * LAUNCH_GROUP) under the agent's default executor, which runs each group as one unit in one
 * shared sandbox.
 *
 * The first group shares files: two writers each leave a line in the executor's sandbox
 * (MESOS_EXECUTOR_SANDBOX, the same directory for every task of the group), and the last task
 * waits for both lines and finishes only if it read them. The second group shows how a group
 * fails: one task exits with status 3, and the default executor kills the group's other tasks
 * (TASK_KILLED), as Mesos's does.
 */
import { Resources } from '@arbiter/allocator';
import { type ExecutorSpec, type Offer, Scheduler, type StatusUpdate, type TaskSpec } from '@arbiter/scheduler-sdk';
import { START_TIMEOUT_MS } from './connect';

export interface TaskGroupResult {
  /** The shared-sandbox group: its three tasks' ends. */
  shared: { tasks: number; finished: number };
  /** The failing group: one task failed, the others killed with it. */
  failing: { tasks: number; failed: number; killed: number };
}

const TASK = { cpus: 0.1, mem: 32 };
const EXECUTOR = { cpus: 0.1, mem: 64 };
const TERMINAL = new Set(['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED', 'GONE']);

/** The reader's wait for the writers' lines, in tenths of a second. */
const READER_WAIT = 300;

const groups: Array<{ name: keyof TaskGroupResult; tasks: Array<{ id: string; shell: string }> }> = [
  {
    name: 'shared',
    tasks: [
      { id: 'writer-1', shell: 'echo "written by $MESOS_TASK_ID" > "$MESOS_EXECUTOR_SANDBOX/writer-1.txt"' },
      { id: 'writer-2', shell: 'echo "written by $MESOS_TASK_ID" > "$MESOS_EXECUTOR_SANDBOX/writer-2.txt"' },
      {
        id: 'reader',
        // Tasks of a group start together: the reader waits for both files, then checks them.
        shell:
          `cd "$MESOS_EXECUTOR_SANDBOX"; i=0; while [ $i -lt ${READER_WAIT} ] && ! { [ -s writer-1.txt ] && [ -s writer-2.txt ]; }; ` +
          'do sleep 0.1; i=$((i+1)); done; cat writer-1.txt writer-2.txt; ' +
          '[ "$(cat writer-1.txt writer-2.txt)" = "$(printf \'written by writer-1\\nwritten by writer-2\')" ]',
      },
    ],
  },
  {
    name: 'failing',
    tasks: [
      { id: 'worker-1', shell: 'sleep 60' },
      { id: 'worker-2', shell: 'sleep 60' },
      { id: 'breaks', shell: 'sleep 1; exit 3' },
    ],
  },
];

export async function runTaskGroup(options: {
  master: string;
  token: string;
  role?: string;
  log?: (line: string) => void;
}): Promise<TaskGroupResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const ended = new Map<string, string>();
  const s = new Scheduler({
    master: options.master,
    token: options.token,
    framework: { name: 'task-group', roles: [options.role ?? 'task-group'] },
  });
  /** The group launched and not yet ended; the next one waits for it. */
  let current = -1;
  let waiting = false;
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const need = Resources.fromScalars(EXECUTOR).plus(Resources.fromScalars({ cpus: TASK.cpus * 3, mem: TASK.mem * 3 }));

  const launchNext = (offer: Offer): boolean => {
    const next = groups.at(current + 1);
    if (!next || waiting || !Resources.of(offer.resources).contains(need)) return false;
    current += 1;
    waiting = true;
    const executor: ExecutorSpec = {
      executorId: `group-${next.name}`,
      type: 'DEFAULT',
      resources: Resources.fromScalars(EXECUTOR).toJSON(),
    };
    const tasks: TaskSpec[] = next.tasks.map((t) => ({
      taskId: t.id,
      name: t.id,
      command: { shell: t.shell },
      resources: Resources.fromScalars(TASK).toJSON(),
    }));
    log(`launch group ${next.name} (${tasks.map((t) => t.taskId).join(', ')}) on ${offer.hostname} under the default executor`);
    s.launchGroup(offer, executor, tasks).catch((err: unknown) =>
      fail(new Error(`the group was refused: ${err instanceof Error ? err.message : String(err)}`)),
    );
    return true;
  };

  s.on('offers', (offers: Offer[]) => {
    for (const offer of offers) {
      if (!launchNext(offer)) s.decline(offer.id, { refuseSeconds: 1 }).catch(() => undefined);
    }
  });
  s.on('update', (u: StatusUpdate) => {
    if (ended.has(u.taskId)) return;
    log(`${u.taskId} ${u.state}${u.message ? ` (${u.message})` : ''}`);
    if (!TERMINAL.has(u.state)) return;
    ended.set(u.taskId, u.state);
    const group = groups.at(current);
    if (!group?.tasks.every((t) => ended.has(t.id))) return;
    waiting = false;
    if (current === groups.length - 1) finish();
    else s.revive().catch(() => undefined);
  });
  await s.start({ timeoutMs: START_TIMEOUT_MS });
  try {
    await done;
  } finally {
    await s.teardown().catch(() => s.close());
  }
  const states = (name: keyof TaskGroupResult) => groups.find((g) => g.name === name)?.tasks.map((t) => ended.get(t.id)) ?? [];
  const count = (list: Array<string | undefined>, state: string) => list.filter((s) => s === state).length;
  const shared = states('shared');
  const failing = states('failing');
  return {
    shared: { tasks: shared.length, finished: count(shared, 'FINISHED') },
    failing: { tasks: failing.length, failed: count(failing, 'FAILED'), killed: count(failing, 'KILLED') },
  };
}
