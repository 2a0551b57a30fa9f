/**
 * Mesos's allocator settings as the control plane applies them: minimum allocatable resources,
 * GPU filtering, refined reservations only to frameworks with RESERVATION_REFINEMENT, resources left
 * out of fair sharing, and the offer timeout (on a manual clock).
 */
import { Resources } from '@arbiter/allocator';
import type { Subscribe } from '@arbiter/scheduler-sdk';
import type { AppConfig } from '../../../src/config/config.schema';
import { ClusterState } from '../../../src/master/cluster-state';
import { Kernel } from '../../../src/kernel/kernel';
import { ManualClock } from '@arbiter/test-support';
import { ADMIN_TOKEN, controlPlaneBed, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { never } from '@arbiter/test-support';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane, close } = controlPlaneBed();

const start = (config: Partial<AppConfig>, clock?: ManualClock) =>
  startControlPlane({ config: { allocationInterval: 0.1, ...config }, clock });
const agent = async (cp: TestControlPlane, hostname: string, resources: Record<string, number>) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, { hostname, resources: Resources.fromScalars(resources).toJSON() });
  closers.push(() => a.close());
  return a.register();
};
const framework = async (cp: TestControlPlane, f: Subscribe) => {
  const r = new Recorder(cp, f);
  closers.push(() => r.s.close());
  await r.s.start();
  return r;
};
/** Waits for `n` more allocation cycles. */
const cyclesPass = async (cp: TestControlPlane, n = 5) => {
  const state = cp.cp.app.get(ClusterState);
  const target = state.cycles + n;
  await until(() => state.cycles >= target);
};

/**
 * Allocation on a manual clock: `advance` moves it, waits for the cycle that starts, for the
 * writes in flight and, given a framework, for what was sent to it (a reply on its connection
 * comes after any offer sent before it).
 */
const cyclesOf = (cp: TestControlPlane, clock: ManualClock, f?: Recorder) => ({
  advance: async (ms: number) => {
    const state = cp.cp.app.get(ClusterState);
    const before = state.cycles;
    await clock.advance(ms);
    await until(() => state.cycles > before);
    await cp.cp.app.get(Kernel).settled();
    await f?.s.reconcile();
  },
});

it('offers only what holds one of the minimum allocatable alternatives', async () => {
  const clock = new ManualClock();
  const cp = await start({ minAllocatableResources: [{ cpus: 2, mem: 64 }] }, clock);
  const small = await agent(cp, 'small', { cpus: 1, mem: 4096 });
  const big = await agent(cp, 'big', { cpus: 4, mem: 4096 });
  const f = await framework(cp, { name: 'f', roles: ['r'] });
  const cycles = cyclesOf(cp, clock, f);
  await cycles.advance(100);
  expect(f.offers.map((o) => o.agentId)).toEqual([big]);
  // Five more cycles, in injected time: the small agent is never offered.
  await never(cycles, () => f.offers.some((o) => o.agentId === small), 500, { step: 100, what: 'an offer of the small agent' });
  // Why: the allocator's decisions name the minimum.
  const explain = await fetch(`${cp.cp.url}/api/v1/frameworks/${defined(f.s.frameworkId)}/explain`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(JSON.stringify(await explain.json())).toContain('BELOW_MIN_ALLOCATABLE');
});

it('offers agents with gpus to frameworks without GPU_RESOURCES once GPU filtering is off, and not before', async () => {
  for (const filterGpuResources of [true, false]) {
    const cp = await start({ filterGpuResources });
    const gpu = await agent(cp, 'gpu', { cpus: 4, mem: 4096, gpus: 1 });
    await agent(cp, 'plain', { cpus: 4, mem: 4096 });
    const f = await framework(cp, { name: 'f', roles: ['r'] });
    await until(() => f.offers.some((o) => o.agentId !== gpu));
    await cyclesPass(cp);
    expect([filterGpuResources, f.offers.some((o) => o.agentId === gpu)]).toEqual([filterGpuResources, !filterGpuResources]);
    await close();
  }
});

it('leaves resources named in the fair-sharing exclusions out of dominant shares', async () => {
  const cp = await start({ fairSharingExcludedResourceNames: ['gpus'] });
  await agent(cp, 'gpu', { cpus: 10, mem: 10_240, gpus: 2 });
  const f = await framework(cp, { name: 'f', roles: ['ml'], capabilities: ['GPU_RESOURCES'] });
  const offer = await f.nextOffer();
  await f.s.launch(offer, [
    {
      taskId: 'train',
      name: 'train',
      command: { shell: 'sleep 1000' },
      resources: Resources.fromScalars({ cpus: 1, mem: 1024, gpus: 2 }).toJSON(),
    },
  ]);
  await cp.cp.app.get(Kernel).settled();
  // All the gpus, a tenth of the cpus and memory: a share of 0.1, not 1.
  const share = () => cp.cp.app.get(ClusterState).allocator.shares().roles.ml;
  await until(() => Math.abs(share() - 0.1) < 1e-9, 10_000, 'the share of ml');
  expect(share()).toBeCloseTo(0.1, 9);
});

it('rescinds an offer left unanswered past the offer timeout and offers its resources again', async () => {
  const clock = new ManualClock();
  const cp = await start({ offerTimeout: 2 }, clock);
  const { advance } = cyclesOf(cp, clock);
  await agent(cp, 'h1', { cpus: 4, mem: 4096 });
  const f = await framework(cp, { name: 'f', roles: ['r'] });
  await advance(200);
  const first = await f.nextOffer();
  await advance(1500);
  expect(f.rescinded).toEqual([]);
  // Offers are checked every second: rescinded within a second after the timeout.
  await advance(1500);
  await until(() => f.rescinded.includes(first.id), 10_000, 'the offer rescinded after 2 s');
  await advance(200);
  const again = await f.nextOffer();
  expect(again.id).not.toBe(first.id);
  expect(Resources.of(again.resources).get('cpus')).toBe(4);
});

it("applies a framework's own offer filters (minimum allocatable resources per role) instead of the configured ones", async () => {
  const cp = await start({});
  const small = await agent(cp, 'small', { cpus: 1, mem: 4096 });
  const big = await agent(cp, 'big', { cpus: 4, mem: 4096 });
  const strict = await framework(cp, { name: 'strict', roles: ['s'], offerFilters: { s: { minAllocatableResources: [{ cpus: 2 }] } } });
  await until(() => strict.offers.some((o) => o.agentId === big));
  await cyclesPass(cp);
  expect(strict.offers.filter((o) => o.agentId === small)).toEqual([]);
  // Another framework, under the configured minimum, is offered the small agent.
  const lax = await framework(cp, { name: 'lax', roles: ['l'] });
  await until(() => lax.offers.some((o) => o.agentId === small));
  // The schema refuses filters that are not quantities.
  const bad = new Recorder(cp, { name: 'bad', roles: ['b'], offerFilters: { b: { minAllocatableResources: [{ cpus: -1 }] } } });
  closers.push(() => bad.s.close());
  await expect(bad.s.start()).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
});

it('offers agents in the pack order when ARBITER_PLACEMENT is pack: the smallest free machine before the big one', async () => {
  const cp = await start({ placement: 'pack' });
  const big = await agent(cp, 'big', { cpus: 32, mem: 131072 });
  const small = await agent(cp, 'small', { cpus: 8, mem: 32768 });
  const f = new Recorder(cp, { name: 'f', roles: ['r'] });
  closers.push(() => f.s.close());
  const batches: string[][] = [];
  f.s.on('offers', (list) => batches.push(list.map((o) => o.agentId)));
  await f.s.start();
  await until(() => batches.some((b) => b.length === 2));
  expect(batches.find((b) => b.length === 2)).toEqual([small, big]);
});

it('offers refined reservations only to frameworks with RESERVATION_REFINEMENT, and says why the others get none', async () => {
  const cp = await start({});
  const agentId = await agent(cp, 'refined', { cpus: 2, mem: 1024 });
  await ok(cp.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng', resources: 'cpus:2;mem:1024' } }), 201);
  await ok(
    cp.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng/ml', refines: 'eng', resources: 'cpus:2;mem:1024' } }),
    201,
  );
  const old = await framework(cp, { name: 'old', roles: ['eng/ml'] });
  await cyclesPass(cp);
  expect(old.offers).toEqual([]);
  const explain = await fetch(`${cp.cp.url}/api/v1/frameworks/${defined(old.s.frameworkId)}/explain`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const why = JSON.stringify(await explain.json());
  expect(why).toContain('MISSING_CAPABILITY');
  expect(why).toContain('refined reservations and the framework lacks the RESERVATION_REFINEMENT capability');
  // One with the capability is offered them, though the other sorts first (both have nothing).
  const able = await framework(cp, { name: 'able', roles: ['eng/ml'], capabilities: ['RESERVATION_REFINEMENT'] });
  const offer = await able.nextOffer();
  expect(Resources.of(offer.resources).toString()).toBe('cpus(eng/ml):2;mem(eng/ml):1024');
  expect(old.offers).toEqual([]);
});
