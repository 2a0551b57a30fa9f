import { Scheduler, type Offer, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { Resources } from '@arbiter/allocator';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from './support/app';
import { ProtocolAgent } from './support/fake-agent';

const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('master: offers, tasks and DRF over the protocols', () => {
  let t: TestControlPlane;
  const closers: Array<() => void> = [];
  beforeAll(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })));
  afterAll(async () => {
    for (const c of closers) c();
    await t.close();
  });

  it('runs the DRF example: A gets 3 tasks of <1 cpu, 4 GB>, B 2 of <3 cpus, 1 GB>', async () => {
    const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'drf-host', resources: Resources.fromScalars({ cpus: 9, mem: 18432 }).toJSON() });
    closers.push(() => agent.close());
    const agentId = await agent.register();
    const running: Record<string, number> = { A: 0, B: 0 };
    const demand = { A: { cpus: 1, mem: 4096 }, B: { cpus: 3, mem: 1024 } };
    for (const name of ['A', 'B'] as const) {
      const s = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework: { name, roles: ['drf'] } });
      closers.push(() => s.close());
      let n = 0;
      s.on('update', (u: StatusUpdate) => {
        if (u.state === 'RUNNING') running[name]++;
      });
      s.on('offers', async (offers: Offer[]) => {
        for (const offer of offers) {
          const have = Resources.of(offer.resources);
          const need = Resources.fromScalars(demand[name]);
          if (have.contains(need)) await s.launch(offer, [{ taskId: `${name}-${n++}`, name: `${name} task`, command: { shell: 'sleep 1000' }, resources: need.toJSON() }], { refuseSeconds: 0 });
          else await s.decline(offer.id, { refuseSeconds: 0 });
        }
      });
      await s.start();
    }
    await until(() => running.A === 3 && running.B === 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(running).toEqual({ A: 3, B: 2 });
    expect(agentId).toBeTruthy();
  });
});
