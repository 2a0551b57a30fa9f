/**
 * The DRF example of the Mesos documentation, live: one agent of <9 cpus, 18 GB>; framework A
 * runs tasks of <1 cpu, 4 GB>, framework B tasks of <3 cpus, 1 GB>. Each launches one
 * long-running task per offer for as long as offers come and hands the rest back without a
 * filter, so DRF decides between them offer by offer. When it settles, A runs 3 tasks and B 2,
 * each at a dominant share of 2/3.
 */
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';

export interface DrfDemoResult {
  tasks: { A: number; B: number };
  dominantShares: { A: number; B: number };
}

const DEMANDS = { A: { cpus: 1, mem: 4096 }, B: { cpus: 3, mem: 1024 } } as const;
type Name = keyof typeof DEMANDS;

export async function runDrfDemo(options: {
  master: string;
  token: string;
  log?: (line: string) => void;
  settleMs?: number;
}): Promise<DrfDemoResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const settleMs = options.settleMs ?? 3000;
  const running: Record<Name, number> = { A: 0, B: 0 };
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
        if (u.state === 'RUNNING') {
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
      ids[name] = (await s.start()).frameworkId;
      log(`framework ${name} subscribed as ${ids[name]} (tasks of ${describe(need)})`);
    }
    for (const s of schedulers) await s.revive();
    lastChange = Date.now();
    // Settled: nothing launched or started for a while, and both have run something.
    while (Date.now() - lastChange < settleMs || running.A + running.B === 0) await new Promise((r) => setTimeout(r, 100));
    settled = true;

    const res = await fetch(new URL('/api/v1/frameworks?limit=500', options.master), {
      headers: { authorization: `Bearer ${options.token}` },
    });
    const body = (await res.json()) as { items: Array<{ id: string; dominantShare: number; activeTasks: number }> };
    const of = (name: Name) => {
      const fw = body.items.find((f) => f.id === ids[name]);
      if (!fw) throw new Error(`framework ${name} is not listed by the control plane`);
      return fw;
    };
    const result: DrfDemoResult = {
      tasks: { A: of('A').activeTasks, B: of('B').activeTasks },
      dominantShares: { A: Math.round(of('A').dominantShare * 1000) / 1000, B: Math.round(of('B').dominantShare * 1000) / 1000 },
    };
    log(
      `settled: A runs ${result.tasks.A} tasks at a dominant share of ${result.dominantShares.A}, B runs ${result.tasks.B} at ${result.dominantShares.B}`,
    );
    return result;
  } finally {
    for (const s of schedulers) await s.teardown().catch(() => s.close());
  }
}
