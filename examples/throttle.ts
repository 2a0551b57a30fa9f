/**
 * The throttle example on the scheduler SDK: a scheduler that builds each task with an executor
 * (Mesos's ExecutorInfo) whose command runs `/bin/sh <dir>/throttle-executor.sh`, and a custom
 * executor (executors/throttle-executor.ts, on the SDK's Executor) that runs every task it is
 * given in its one process, at most `throttle` at a time. Each update carries the executor's
 * process id, so the result shows how many executor processes ran the tasks (one per agent).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { START_TIMEOUT_MS } from './connect';

export interface ThrottleResult {
  tasks: number;
  finished: number;
  executorProcesses: number;
}

/** Each task's and the executor's own resources (Node and the TypeScript it compiles when it starts). */
const TASK = { cpus: 0.1, mem: 16 };
const EXECUTOR = { cpus: 0.1, mem: 256 };
const TERMINAL = new Set(['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED', 'GONE']);

/**
 * Writes `<dir>/throttle-executor.sh`, which starts `program` (a Node script) with node. The
 * agent runs it in the executor's sandbox, as the task user, who must be able to read `dir`.
 */
export function writeExecutorScript(dir: string, program: string): string {
  const script = path.join(dir, 'throttle-executor.sh');
  fs.writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(program)} "$@"\n`, { mode: 0o755 });
  return script;
}

export async function runThrottle(options: {
  master: string;
  token: string;
  /** Where throttle-executor.sh is written. */
  dir: string;
  tasks?: number;
  /** At most this many tasks at a time in the executor (handed to it as ExecutorInfo.data). */
  throttle?: number;
  /** How long each task works, in ms. */
  workMs?: number;
  role?: string;
  log?: (line: string) => void;
}): Promise<ThrottleResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const count = options.tasks ?? 6;
  const script = writeExecutorScript(options.dir, path.join(__dirname, 'executors', 'throttle-executor.js'));
  const executor = {
    executorId: 'throttle',
    type: 'CUSTOM' as const,
    name: 'throttle executor',
    command: { shell: `/bin/sh ${script}` },
    resources: Resources.fromScalars(EXECUTOR).toJSON(),
    data: Buffer.from(JSON.stringify({ throttle: options.throttle ?? 2 })).toString('base64'),
  };
  const pending = Array.from({ length: count }, (_, i) => `throttle-${i}`);
  const ended = new Map<string, string>();
  const pids = new Set<string>();
  /** Agents whose offers already had room taken for the executor. */
  const withExecutor = new Set<string>();
  const s = new Scheduler({
    master: options.master,
    token: options.token,
    framework: { name: 'throttle', roles: [options.role ?? 'throttle'] },
  });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  s.on('offers', (offers: Offer[]) => {
    for (const offer of offers) {
      let left = Resources.of(offer.resources);
      const per = Resources.fromScalars(TASK);
      const own = Resources.fromScalars(EXECUTOR);
      const first = !withExecutor.has(offer.agentId);
      if (first && !left.contains(own.plus(per))) left = Resources.fromScalars({});
      else if (first) left = left.minus(own);
      const tasks = [];
      for (let next = pending.at(0); next && left.contains(per); next = pending.at(0)) {
        pending.shift();
        const data = Buffer.from(JSON.stringify({ workMs: options.workMs ?? 500 })).toString('base64');
        tasks.push({ taskId: next, name: next, resources: per.toJSON(), executor, data });
        left = left.minus(per);
      }
      if (!tasks.length) {
        s.decline(offer.id, { refuseSeconds: pending.length ? 0 : 3600 }).catch(() => undefined);
        continue;
      }
      withExecutor.add(offer.agentId);
      const ids = tasks.map((t) => t.taskId);
      log(`launch ${ids.join(', ')} on ${offer.hostname} under executor ${executor.executorId}`);
      s.launch(offer, tasks).catch((err: unknown) => {
        // Refused (a control plane without executors, say): those tasks end here, not in a wait forever.
        log(`launch refused: ${err instanceof Error ? err.message : String(err)}`);
        for (const id of ids) ended.set(id, 'REFUSED');
        if (ended.size === count) finish();
      });
    }
    if (!pending.length) s.suppress().catch(() => undefined);
  });
  s.on('update', (u: StatusUpdate) => {
    if (ended.has(u.taskId)) return;
    const pid = /pid (\d+)/.exec(u.message ?? '')?.[1];
    if (pid) pids.add(`${u.agentId}/${pid}`);
    log(`${u.taskId} ${u.state}${u.message ? ` (${u.message})` : ''}`);
    if (!TERMINAL.has(u.state)) return;
    ended.set(u.taskId, u.state);
    if (ended.size === count) finish();
  });
  await s.start({ timeoutMs: START_TIMEOUT_MS });
  if (!count) finish();
  try {
    await done;
  } finally {
    // Ending the framework ends its executors.
    await s.teardown().catch(() => s.close());
  }
  const finished = [...ended.values()].filter((state) => state === 'FINISHED').length;
  return { tasks: count, finished, executorProcesses: pids.size };
}
