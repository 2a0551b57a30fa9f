/**
 * The DRF example of the Mesos documentation, live: one agent of <9 cpus, 18 GB>; framework A
 * runs tasks of <1 cpu, 4 GB>, framework B tasks of <3 cpus, 1 GB>. Each launches one
 * long-running task per offer for as long as offers come and hands the rest back without a
 * filter, so DRF decides between them offer by offer. When it settles, A runs 3 tasks and B 2,
 * each at a dominant share of 2/3.
 *
 * It runs as frameworks do, with a FRAMEWORK principal's token, and reports only what its
 * frameworks see: the tasks each has running (from its status updates) and, against the
 * cluster's resources, the dominant share those tasks make.
 */
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import { START_TIMEOUT_MS } from './connect';

export interface DrfDemoResult {
  tasks: { A: number; B: number };
  dominantShares: { A: number; B: number };
}

const DEMANDS = { A: { cpus: 1, mem: 4096 }, B: { cpus: 3, mem: 1024 } } as const;
type Name = keyof typeof DEMANDS;

/** The agent of the Mesos documentation's example: <9 cpus, 18 GB>. */
export const DRF_DEMO_CLUSTER = { cpus: 9, mem: 18432 } as const;

/** A task in one of these states holds its resources; in any other, it ended (or its agent is out of reach). */
const HOLDING = new Set(['STAGING', 'STARTING', 'RUNNING', 'KILLING']);

export async function runDrfDemo(options: {
  master: string;
  /** A token the frameworks subscribe with: a FRAMEWORK principal's (or an admin's). */
  token: string;
  /** The cluster's resources, for the dominant shares (default: the example's one agent). */
  cluster?: Record<string, number>;
  log?: (line: string) => void;
  settleMs?: number;
  /** Runs once it has settled, before its frameworks leave (their tasks still run). */
  whileSettled?: (result: DrfDemoResult) => Promise<void>;
}): Promise<DrfDemoResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const settleMs = options.settleMs ?? 3000;
  const cluster = Resources.fromScalars(options.cluster ?? DRF_DEMO_CLUSTER);
  const running: Record<Name, number> = { A: 0, B: 0 };
  const live: Record<Name, Set<string>> = { A: new Set(), B: new Set() };
  const ids: Partial<Record<Name, string>> = {};
  const schedulers: Scheduler[] = [];
  let lastChange: number;
  let settled = false;

  const describe = (r: Resources) => `<${r.get('cpus')} cpus, ${r.get('mem') / 1024} GB>`;
  try {
    for (const name of ['A', 'B'] as const) {
      const need = Resources.fromScalars(DEMANDS[name]);
      // Subscribed suppressed: offers start once both frameworks are there, as in the walk-through.
      const s = new Scheduler({
        master: options.master,
        token: options.token,
        framework: { name: `drf-demo-${name}`, roles: ['drf-demo'], suppressedRoles: ['drf-demo'] },
      });
      schedulers.push(s);
      let n = 0;
      s.on('update', (u) => {
        if (!HOLDING.has(u.state)) live[name].delete(u.taskId);
        if (u.state === 'RUNNING') {
          live[name].add(u.taskId);
          running[name]++;
          lastChange = Date.now();
          log(`  ${name}: task ${u.taskId} RUNNING (A runs ${running.A}, B runs ${running.B})`);
        } else if (u.state !== 'STARTING') log(`  ${name}: task ${u.taskId} ${u.state}${u.message ? `: ${u.message}` : ''}`);
      });
      s.on('offers', (offers: Offer[]) => {
        if (settled) return;
        for (const offer of offers) {
          const offered = Resources.of(offer.resources);
          if (offered.contains(need)) {
            const taskId = `${name}-${n++}`;
            log(`offer to ${name}: ${describe(offered)} -> launch ${taskId} ${describe(need)}, hand back the rest`);
            lastChange = Date.now();
            s.launch(offer, [{ taskId, name: `drf demo ${name}`, command: { shell: 'exec sleep 3600' }, resources: need.toJSON() }], {
              refuseSeconds: 0,
            }).catch((err: unknown) => log(`  ${name}: launch refused: ${err instanceof Error ? err.message : String(err)}`));
          } else {
            s.decline(offer.id, { refuseSeconds: 0 }).catch(() => undefined);
          }
        }
      });
      ids[name] = (await s.start({ timeoutMs: START_TIMEOUT_MS })).frameworkId;
      log(`framework ${name} subscribed as ${ids[name]} (tasks of ${describe(need)})`);
    }
    for (const s of schedulers) await s.revive();
    lastChange = Date.now();
    // Settled: nothing launched or started for a while, and both have run something.
    while (Date.now() - lastChange < settleMs || running.A + running.B === 0) await new Promise((r) => setTimeout(r, 100));
    settled = true;

    // What each framework runs, from its own status updates, and the dominant share it makes.
    const share = (name: Name) => {
      const n = live[name].size;
      return Math.round(Math.max(...Object.entries(DEMANDS[name]).map(([r, v]) => (n * v) / cluster.get(r))) * 1000) / 1000;
    };
    const result: DrfDemoResult = {
      tasks: { A: live.A.size, B: live.B.size },
      dominantShares: { A: share('A'), B: share('B') },
    };
    log(
      `settled: A runs ${result.tasks.A} tasks at a dominant share of ${result.dominantShares.A}, B runs ${result.tasks.B} at ${result.dominantShares.B}`,
    );
    await options.whileSettled?.(result);
    return result;
  } finally {
    for (const s of schedulers) await s.teardown().catch(() => s.close());
  }
}
