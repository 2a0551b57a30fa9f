/**
 * A batch framework: runs N shell commands as tasks (each <0.1 cpu, 32 MB> unless given), one
 * per offer slot, and finishes when every one has ended, reporting each outcome.
 */
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { START_TIMEOUT_MS } from './connect';

export interface BatchOutcome {
  taskId: string;
  command: string;
  state: string;
  message?: string;
}

const TERMINAL = new Set(['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR']);

export async function runBatch(options: {
  master: string;
  token: string;
  commands: string[];
  role?: string;
  resources?: Record<string, number>;
  log?: (line: string) => void;
}): Promise<BatchOutcome[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const per = Resources.fromScalars(options.resources ?? { cpus: 0.1, mem: 32 });
  const pending = options.commands.map((command, i) => ({ taskId: `cmd-${i}`, command }));
  const outcomes = new Map<string, BatchOutcome>();
  const s = new Scheduler({ master: options.master, token: options.token, framework: { name: 'batch', roles: [options.role ?? 'batch'] } });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  s.on('offers', (offers: Offer[]) => {
    for (const offer of offers) {
      let left = Resources.of(offer.resources);
      const tasks = [];
      for (let next = pending.at(0); next && left.contains(per); next = pending.at(0)) {
        pending.shift();
        tasks.push({ taskId: next.taskId, name: next.command.slice(0, 100), command: { shell: next.command }, resources: per.toJSON() });
        left = left.minus(per);
      }
      if (!tasks.length) {
        s.decline(offer.id, { refuseSeconds: pending.length ? 0 : 3600 }).catch(() => undefined);
        continue;
      }
      for (const t of tasks) log(`launch ${t.taskId}: ${t.command.shell}`);
      s.launch(offer, tasks).catch((err: unknown) => log(`launch refused: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (!pending.length) s.suppress().catch(() => undefined);
  });
  s.on('update', (u: StatusUpdate) => {
    if (!TERMINAL.has(u.state) || outcomes.has(u.taskId)) return;
    const command = options.commands[Number(u.taskId.slice(4))];
    outcomes.set(u.taskId, { taskId: u.taskId, command, state: u.state, ...(u.message ? { message: u.message } : {}) });
    log(`${u.taskId} ${u.state}${u.message ? ` (${u.message})` : ''}: ${command}`);
    if (outcomes.size === options.commands.length) finish();
  });
  await s.start({ timeoutMs: START_TIMEOUT_MS });
  if (!options.commands.length) finish();
  try {
    await done;
  } finally {
    await s.teardown().catch(() => s.close());
  }
  return options.commands.map((_, i) => {
    const outcome = outcomes.get(`cmd-${i}`);
    if (!outcome) throw new Error(`no outcome for command ${i}`);
    return outcome;
  });
}
