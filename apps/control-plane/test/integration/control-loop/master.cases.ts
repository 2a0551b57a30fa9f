import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import { type Offer, Scheduler, SchedulerError, type Subscribe } from '@arbiter/scheduler-sdk';
import { defined, until } from '../../support/until';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok, refused } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { Retention } from '../../../src/history/retention.handler';
import { ClusterState } from '../../../src/master/cluster-state';
import { Kernel } from '../../../src/kernel/kernel';
import { ManualClock } from '@arbiter/test-support';
import { Master } from '../../../src/master-life';
import { TasksRepository } from '../../../src/tasks/tasks.repository';
import { TaskUpdates } from '../../../src/tasks/task-updates.handler';

const task = (taskId: string, resources: Record<string, number>) => ({
  taskId,
  name: taskId,
  command: { shell: 'sleep 1000' },
  resources: Resources.fromScalars(resources).toJSON(),
});

describe('master: offers, tasks and DRF over the protocols', () => {
  let t: TestControlPlane;
  const closers: Array<() => void> = [];
  const agent = async (hostname: string, resources: Record<string, number>) => {
    const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname, resources: Resources.fromScalars(resources).toJSON() });
    closers.push(() => a.close());
    await a.register();
    return a;
  };
  const framework = async (f: Subscribe, options: { autoAcknowledge?: boolean; token?: string } = {}) => {
    const r = new Recorder(t, f, options);
    closers.push(() => r.s.close());
    await r.s.start();
    return r;
  };
  /** A framework 'a' with one offer from each of two agents. */
  const offersOfTwoAgents = async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    await agent('h2', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['r'] });
    await until(() => a.offers.length >= 2);
    const [o1, o2] = a.offers.splice(0, 2);
    return { a, o1, o2 };
  };
  /**
   * Waits until the allocator has run `n` more cycles: what a check that nothing more arrives
   * waits for (a cycle starts only once the last one's offers are recorded and sent).
   */
  const cyclesPass = async (n = 3) => {
    const state = t.cp.app.get(ClusterState);
    const target = state.cycles + n;
    await until(() => state.cycles >= target);
  };
  /**
   * Replaces this test's control plane with one on a manual clock: cycles and timeouts happen
   * only as the test moves time. `advance` moves it, waits for the cycle that asks for, for the
   * writes in flight, and (given a framework) for what was sent to it: a reply on the same
   * connection comes after any offer sent before it.
   */
  const onManualClock = async (config: Parameters<typeof startTestControlPlane>[0] = {}) => {
    const first = t;
    const clock = new ManualClock();
    const second = await startTestControlPlane({ ...config, config: { allocationInterval: 0.1, ...config.config }, clock });
    t = { ...second, close: () => second.close().then(() => first.close()) };
    const state = t.cp.app.get(ClusterState);
    const kernel = t.cp.app.get(Kernel);
    const advance = async (ms: number, f?: Recorder) => {
      const before = state.cycles;
      await clock.advance(ms);
      await until(() => state.cycles > before);
      await kernel.settled();
      await f?.s.reconcile();
    };
    return { clock, advance };
  };
  /** A framework, task or agent as the REST API reports it. */
  const frameworkView = (id: string) => ok(t.client.GET('/api/v1/frameworks/{id}', { params: { path: { id } } }));
  const agentView = (id: string) => ok(t.client.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
  const taskView = (id: string) => ok(t.client.GET('/api/v1/tasks/{id}', { params: { path: { id } } }));
  const tasksOf = (frameworkId?: string, state?: 'RUNNING') =>
    ok(t.client.GET('/api/v1/tasks', { params: { query: { ...(frameworkId ? { frameworkId } : {}), ...(state ? { state } : {}) } } }));
  const offersOf = (query: { frameworkId?: string; state?: 'OUTSTANDING' | 'ACCEPTED' | 'RESCINDED' }) =>
    ok(t.client.GET('/api/v1/offers', { params: { query } }));
  const auditOf = (query: { action: string; actor?: string }) => ok(t.client.GET('/api/v1/audit', { params: { query } }));
  beforeEach(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1, agentTimeout: 2 } })));
  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    await t.close();
  });

  it('runs the DRF example: A gets 3 tasks of <1 cpu, 4 GB>, B 2 of <3 cpus, 1 GB>, both at a dominant share of 2/3', async () => {
    await agent('drf-host', { cpus: 9, mem: 18432 });
    const running: Record<string, number> = { A: 0, B: 0 };
    const demand = { A: { cpus: 1, mem: 4096 }, B: { cpus: 3, mem: 1024 } };
    const ids: Record<string, string> = {};
    const schedulers: Scheduler[] = [];
    for (const name of ['A', 'B'] as const) {
      // Subscribed suppressed, revived once both are there (else the first could take more).
      const s = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework: { name, roles: ['drf'], suppressedRoles: ['drf'] } });
      closers.push(() => s.close());
      schedulers.push(s);
      let n = 0;
      s.on('update', (u) => {
        if (u.state === 'RUNNING') running[name]++;
      });
      s.on('offers', (offers) => {
        for (const offer of offers) {
          const need = Resources.fromScalars(demand[name]);
          const answer = Resources.of(offer.resources).contains(need)
            ? s.launch(offer, [task(`${name}-${n++}`, demand[name])], { refuseSeconds: 0 })
            : s.decline(offer.id, { refuseSeconds: 0 });
          answer.catch(() => undefined); // the test may end with an answer in flight
        }
      });
      ids[name] = (await s.start()).frameworkId;
    }
    for (const s of schedulers) await s.revive();
    await until(() => running.A === 3 && running.B === 2);
    await cyclesPass();
    expect(running).toEqual({ A: 3, B: 2 });
    const list = await ok(t.client.GET('/api/v1/frameworks'));
    const share = (id: string | undefined) => list.items.find((f) => f.id === id)?.dominantShare;
    expect(share(ids.A)).toBeCloseTo(2 / 3, 3);
    expect(share(ids.B)).toBeCloseTo(2 / 3, 3);
    expect(list.items.find((f) => f.id === ids.A)).toMatchObject({
      activeTasks: 3,
      used: { cpus: 3, mem: 12288 },
      connected: true,
      state: 'ACTIVE',
    });
    const tasks = await tasksOf(ids.B, 'RUNNING');
    expect(tasks.total).toBe(2);
    const one = await taskView(tasks.items[0].id);
    expect(one.history?.map((h) => h.state)).toEqual(['STARTING', 'RUNNING']);
    expect(one.history?.every((h) => h.acknowledgedAt !== null)).toBe(true);
    const cycles = await ok(t.client.GET('/api/v1/allocations', { params: { query: { frameworkId: ids.A } } }));
    expect(cycles.total).toBeGreaterThanOrEqual(3);
    const detail = await ok(t.client.GET('/api/v1/allocations/{id}', { params: { path: { id: cycles.items[0].id } } }));
    expect(detail.offers.some((o) => o.frameworkId === ids.A)).toBe(true);
    expect(detail.trace).toHaveProperty('counts');
    const series = await ok(t.client.GET('/api/v1/allocations/shares', { params: { query: { kind: 'FRAMEWORK', client: ids.A } } }));
    expect(series.length).toBeGreaterThan(0);
    // The CSV export is not JSON: read raw.
    const csv = await t.request('GET', '/api/v1/allocations/export?format=csv');
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(String(csv.body).split('\n')[0]).toBe('cycle_id,started_at,duration_ms,offer_count,framework_id,role,agent_id,resources');
    expect(String(csv.body)).toContain(ids.B);
  });

  it('respects a decline filter for its duration on the allocator clock, then offers again; revive clears it at once', async () => {
    const { advance: move } = await onManualClock();
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'decliner', roles: ['r'] });
    const advance = (ms: number) => move(ms, f);

    await advance(100);
    const offered = f.offers.splice(0);
    expect(offered).toHaveLength(1);
    await f.s.decline(offered[0].id, { refuseSeconds: 1.5 });
    await advance(1_400);
    expect(f.offers).toHaveLength(0);
    await advance(200); // past the filter's 1.5 s
    const again = f.offers.splice(0);
    expect(again).toHaveLength(1);

    await f.s.decline(again[0].id, { refuseSeconds: 3600 });
    await advance(1_000);
    expect(f.offers).toHaveLength(0);
    const explain = await ok(t.client.GET('/api/v1/frameworks/{id}/explain', { params: { path: { id: f.s.frameworkId ?? '' } } }));
    expect(explain.reasons.FRAMEWORK_FILTERED).toBeGreaterThan(0);
    expect(explain.summary.join(' ')).toMatch(/declined its resources with a filter/);
    await f.s.revive();
    await advance(100);
    expect(f.offers).toHaveLength(1);
  });

  it('suppresses and revives offers per role', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'quiet', roles: ['r'], suppressedRoles: ['r'] });
    await cyclesPass();
    expect(f.offers).toHaveLength(0);
    expect((await frameworkView(f.s.frameworkId ?? '')).suppressedRoles).toEqual(['r']);
    await f.s.revive(['r']);
    const offer = await f.nextOffer();
    await f.s.suppress();
    await f.s.decline(offer.id, { refuseSeconds: 0 });
    await cyclesPass();
    expect(f.offers).toHaveLength(0);
    await expect(f.s.suppress(['other'])).rejects.toMatchObject({ code: 'ROLE_NOT_SUBSCRIBED' });
  });

  it('kills a running task and reports KILLED; refuses unknown tasks', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'killer', roles: ['r'] });
    await f.s.launch(await f.nextOffer(), [task('victim', { cpus: 1, mem: 128 })]);
    await until(() => f.states('victim').includes('RUNNING'));
    await f.s.kill('victim');
    await until(() => f.states('victim').includes('KILLED'));
    await expect(f.s.kill('nobody')).rejects.toMatchObject({ code: 'UNKNOWN_TASK' });
  });

  it('refuses stale, unknown and foreign offers, tasks beyond the offer and duplicate task ids', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['r'] });
    const offer = await a.nextOffer();
    await expect(a.s.launch(offer, [task('big', { cpus: 5 })])).rejects.toMatchObject({ code: 'INSUFFICIENT_OFFERED_RESOURCES' });
    await expect(a.s.launch(offer, [task('x', { cpus: 1 }), task('x', { cpus: 1 })])).rejects.toMatchObject({ code: 'DUPLICATE_TASK' });
    await expect(a.s.accept(['3f1c1f9e-0000-4000-8000-000000000000'], [])).rejects.toMatchObject({ code: 'UNKNOWN_OFFER' });
    await expect(a.s.accept(['not-a-uuid'], [])).rejects.toMatchObject({ code: 'UNKNOWN_OFFER' });
    await a.s.launch(offer, [task('t1', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    await expect(a.s.launch(offer, [task('t2', { cpus: 1 })])).rejects.toMatchObject({ code: 'OFFER_STALE' });
    const again = await a.nextOffer();
    await expect(a.s.launch(again, [task('t1', { cpus: 1, mem: 64 })])).rejects.toMatchObject({ code: 'DUPLICATE_TASK' });
    await a.s.decline(again.id, { refuseSeconds: 3600 });
    const b = await framework({ name: 'b', roles: ['r'] });
    const bOffer = await b.nextOffer();
    await expect(a.s.launch(bOffer, [task('steal', { cpus: 1 })])).rejects.toMatchObject({ code: 'OFFER_NOT_YOURS' });
    // A bad message is refused with the fields named; nothing changes.
    await expect(a.s.accept([''], [])).rejects.toThrow(SchedulerError);
    const invalid: unknown = await a.s.accept([''], []).catch((err: unknown) => err);
    expect(invalid).toMatchObject({ code: 'INVALID_MESSAGE' });
    expect(String(invalid)).toContain('offerIds.0');
  });

  it('answers offers sent together in arrival order: a second accept of an offer is stale, a task id used before is a duplicate, the others launch', async () => {
    const { a, o1, o2 } = await offersOfTwoAgents();
    const small = (id: string) => task(id, { cpus: 1, mem: 64 });
    // Sent without waiting, so that they arrive (and are written) together.
    const answers = await Promise.allSettled([
      a.s.launch(o1, [small('same')], { refuseSeconds: 3600 }),
      a.s.launch(o1, [small('other')]),
      a.s.launch(o2, [small('same')]),
      a.s.accept(['3f1c1f9e-0000-4000-8000-000000000000'], []),
      a.s.launch(o2, [small('third'), small('fourth')], { refuseSeconds: 3600 }),
    ]);
    const outcome = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? r.value : (r.reason as SchedulerError).code);
    expect(answers.map(outcome)).toEqual([
      { launched: ['same'] },
      'OFFER_STALE',
      'DUPLICATE_TASK',
      'UNKNOWN_OFFER',
      { launched: ['third', 'fourth'] },
    ]);
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/no longer valid \(accepted\)/);
    for (const id of ['same', 'third', 'fourth']) await until(() => a.states(id).includes('RUNNING'), 10_000, `${id} RUNNING`);
    const tasks = await tasksOf(a.s.frameworkId);
    expect(tasks.items.map((x) => x.taskId).sort()).toEqual(['fourth', 'same', 'third']);
    const offers = await offersOf({ frameworkId: a.s.frameworkId, state: 'ACCEPTED' });
    expect(offers.total).toBe(2);
  });

  it('refuses the id of a task that has ended when it writes the accept: DUPLICATE_TASK, the offer rescinded, nothing launched; the answers written with it go on', async () => {
    const h1 = await agent('h1', { cpus: 4, mem: 4096 });
    h1.finishImmediately = true;
    const a = await framework({ name: 'a', roles: ['r'] });
    await a.s.launch(await a.nextOffer(), [task('once', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    await until(() => a.states('once').includes('FINISHED'));
    // Ended: no longer among the live tasks, only its row holds the id.
    expect(t.cp.app.get(ClusterState).liveTasks.get(defined(a.s.frameworkId), 'once')).toBeUndefined();
    const h2 = await agent('h2', { cpus: 4, mem: 4096 });
    const offerOf = async (agentId?: string) => {
      const find = () => a.offers.find((o) => o.agentId === agentId);
      await until(() => find() !== undefined, 10_000, `an offer of ${agentId}`);
      return defined(find());
    };
    // h1 may come back in pieces (what the first launch left, then what 'once' used): each piece
    // is declined without a filter until the allocator offers h1 whole, so no part of it stays
    // out in another offer while the refused accept's comes back.
    const whole = (o: Offer) => o.agentId === h1.agentId && Resources.of(o.resources).toString() === 'cpus:4;mem:4096';
    await until(
      async () => {
        for (const piece of a.offers.filter((o) => o.agentId === h1.agentId && !whole(o))) {
          a.offers.splice(a.offers.indexOf(piece), 1);
          await a.s.decline(piece.id, { refuseSeconds: 0 });
        }
        return a.offers.some(whole);
      },
      10_000,
      'h1 offered whole',
    );
    const [o1, o2] = [defined(a.offers.find(whole)), await offerOf(h2.agentId)];
    a.offers.splice(0);
    const answers = await Promise.allSettled([
      a.s.launch(o1, [task('again', { cpus: 1, mem: 64 }), task('once', { cpus: 1, mem: 64 })], { refuseSeconds: 0 }),
      a.s.launch(o2, [task('fresh', { cpus: 1, mem: 64 })], { refuseSeconds: 3600 }),
    ]);
    expect(answers.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as SchedulerError).code))).toEqual([
      'DUPLICATE_TASK',
      { launched: ['fresh'] },
    ]);
    expect(String((answers[0] as PromiseRejectedResult).reason)).toMatch(/task id 'once' is already used by this framework/);
    await until(() => a.rescinded.includes(o1.id), 10_000, "the refused accept's offer rescinded");
    await until(() => a.states('fresh').includes('RUNNING'));
    const tasks = await tasksOf(a.s.frameworkId);
    expect(tasks.items.map((x) => `${x.taskId} ${x.state}`).sort()).toEqual(['fresh RUNNING', 'once FINISHED']);
    expect((await offersOf({ frameworkId: a.s.frameworkId, state: 'RESCINDED' })).items.map((o) => o.id)).toEqual([o1.id]);
    // What the refused accept held is offered again, all of it (it asked for no filter): the
    // remainder it did not use goes back as the accept is answered, what its launches held once
    // the refusal is written, so on a busy machine h1 may come back as two offers.
    const backOfH1 = () =>
      a.offers.filter((o) => o.agentId === h1.agentId).reduce((sum, o) => sum.plus(Resources.of(o.resources)), Resources.empty());
    await until(() => backOfH1().toString() === 'cpus:4;mem:4096', 10_000, 'all of h1 offered again');
    expect(backOfH1().toJSON()).toEqual(Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON());
  });

  it('refuses an accept of an offer declined just before it, and ignores a decline of an offer already taken', async () => {
    const { a, o1, o2 } = await offersOfTwoAgents();
    const answers = await Promise.allSettled([
      a.s.decline(o1.id, { refuseSeconds: 3600 }),
      a.s.launch(o1, [task('late', { cpus: 1, mem: 64 })]),
      a.s.launch(o2, [task('first', { cpus: 1, mem: 64 })], { refuseSeconds: 3600 }),
      a.s.decline(o2.id),
    ]);
    expect(answers.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refusedLate: unknown = (answers[1] as PromiseRejectedResult).reason;
    expect(refusedLate).toMatchObject({ code: 'OFFER_STALE' });
    expect(String(refusedLate)).toContain('(declined)');
    await until(() => a.states('first').includes('RUNNING'));
    const state = async (id: string) => (await offersOf({ frameworkId: a.s.frameworkId })).items.find((o) => o.id === id)?.state;
    expect(await state(o1.id)).toBe('DECLINED');
    expect(await state(o2.id)).toBe('ACCEPTED');
  });

  it('records acknowledgements sent together, and only those of the framework that got the update', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['r'] }, { autoAcknowledge: false });
    await a.s.launch(await a.nextOffer(), [task('k', { cpus: 1, mem: 64 })]);
    await until(() => a.states('k').includes('RUNNING'));
    const b = await framework({ name: 'b', roles: ['r'] });
    const updates = a.updates.filter((u) => u.taskId === 'k');
    // Another framework cannot acknowledge them.
    await Promise.all(updates.map((u) => b.s.acknowledge(u)));
    const history = async () => {
      const list = await tasksOf(a.s.frameworkId);
      return (await taskView(list.items[0].id)).history ?? [];
    };
    expect((await history()).map((h) => h.acknowledgedAt)).toEqual([null, null]);
    await Promise.all(updates.map((u) => a.s.acknowledge(u)));
    expect((await history()).every((h) => h.acknowledgedAt !== null)).toBe(true);
  });

  it('records a status update once per updateUuid and never moves a task out of a terminal state, within one batch too', async () => {
    const ag = await agent('h1', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['r'] });
    await a.s.launch(await a.nextOffer(), [task('once', { cpus: 1, mem: 64 })]);
    await until(() => a.states('once').includes('RUNNING'));
    const finished = {
      updateUuid: randomUUID(),
      frameworkId: defined(a.s.frameworkId),
      taskId: 'once',
      agentId: defined(ag.agentId),
      state: 'FINISHED',
      timestamp: new Date().toISOString(),
      source: 'SOURCE_AGENT',
    };
    // Sent together: FINISHED twice (a resend) and a late RUNNING after it.
    const replies = await Promise.all(
      [finished, finished, { ...finished, updateUuid: randomUUID(), state: 'RUNNING' }].map((u) => ag.socket.emitWithAck('status', u)),
    );
    expect(replies).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    await until(() => a.states('once').includes('FINISHED'));
    const list = await tasksOf(a.s.frameworkId);
    expect(list.items[0].state).toBe('FINISHED');
    const one = await taskView(list.items[0].id);
    expect(one.history?.map((h) => h.state)).toEqual(['STARTING', 'RUNNING', 'FINISHED', 'RUNNING']);
  });

  it('never offers the same resources twice while an offer is outstanding', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['r'] });
    const b = await framework({ name: 'b', roles: ['r'] });
    await until(() => a.offers.length + b.offers.length > 0);
    await cyclesPass();
    expect(a.offers.length + b.offers.length).toBe(1);
    const outstanding = await offersOf({ state: 'OUTSTANDING' });
    expect(outstanding.total).toBe(1);
  });

  it('keeps tasks of a framework that reconnects within its failover timeout, and gives it unacknowledged updates again', async () => {
    const ag = await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'phoenix', roles: ['r'], failoverTimeoutSeconds: 30 }, { autoAcknowledge: false });
    const id = defined(f.s.frameworkId);
    await f.s.launch(await f.nextOffer(), [task('keep', { cpus: 1, mem: 64 })]);
    await until(() => f.states('keep').includes('RUNNING'));
    f.s.close();
    await until(async () => (await frameworkView(id)).state === 'DISCONNECTED');
    await ag.status(id, 'keep', 'RUNNING');
    const back = new Recorder(t, { name: 'phoenix', roles: ['r'], frameworkId: id, failoverTimeoutSeconds: 30 });
    closers.push(() => back.s.close());
    expect((await back.s.start()).frameworkId).toBe(id);
    // What was not acknowledged arrives again: of the task, its latest update (RUNNING).
    await until(() => back.states('keep').length >= 1);
    expect(new Set(back.states('keep'))).toEqual(new Set(['RUNNING']));
    const fw = await frameworkView(id);
    expect(fw).toMatchObject({ state: 'ACTIVE', activeTasks: 1, connected: true });
  });

  it('gives a framework that subscribes again its unacknowledged updates and those recorded meanwhile, never an older state after a newer one', async () => {
    const ag = await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'orderly', roles: ['r'], failoverTimeoutSeconds: 30 }, { autoAcknowledge: false });
    const id = defined(f.s.frameworkId);
    await f.s.launch(await f.nextOffer(), [task('ordered', { cpus: 1, mem: 64 })]);
    await until(() => f.states('ordered').includes('RUNNING'));
    f.s.close();
    await until(async () => (await frameworkView(id)).state === 'DISCONNECTED');
    // The read of its unacknowledged updates is held up; FINISHED is recorded meanwhile.
    const repo = t.cp.app.get(TasksRepository);
    const read = repo.unacknowledged.bind(repo);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const reads = jest.spyOn(repo, 'unacknowledged').mockImplementationOnce(async (...args) => {
      await gate;
      return read(...args);
    });
    const back = new Recorder(
      t,
      { name: 'orderly', roles: ['r'], frameworkId: id, failoverTimeoutSeconds: 30 },
      { autoAcknowledge: false },
    );
    closers.push(() => back.s.close());
    await back.s.start();
    await until(() => reads.mock.calls.length === 1);
    await ag.status(id, 'ordered', 'FINISHED');
    open();
    await until(() => back.states('ordered').includes('FINISHED'));
    // Read once FINISHED was recorded: the task's latest, and nothing older after it.
    expect(back.states('ordered')).toEqual(['FINISHED']);
    reads.mockRestore();
  });

  it('sends the latest unacknowledged update of a task again, never an older one after it; acknowledging it acknowledges those before', async () => {
    const ag = await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'slow-reader', roles: ['r'] }, { autoAcknowledge: false });
    const id = defined(f.s.frameworkId);
    await f.s.launch(await f.nextOffer(), [task('paced', { cpus: 1, mem: 64 })]);
    await until(() => f.states('paced').includes('RUNNING'));
    await ag.status(id, 'paced', 'FINISHED');
    await until(() => f.states('paced').includes('FINISHED'));
    expect(f.states('paced')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    // The framework has acknowledged nothing: the periodic resend sends FINISHED only.
    const updates = t.cp.app.get(TaskUpdates);
    const finished = defined(f.updates.find((u) => u.taskId === 'paced' && u.state === 'FINISHED'));
    expect([...(await updates.resendUnacknowledged(id, 0))]).toEqual([finished.updateUuid]);
    await until(() => f.states('paced').length === 4);
    expect(f.states('paced')).toEqual(['STARTING', 'RUNNING', 'FINISHED', 'FINISHED']);
    // Acknowledging FINISHED acknowledges STARTING and RUNNING with it: nothing is sent again.
    await f.s.acknowledge(finished);
    await until(async () => (await updates.resendUnacknowledged(id, 0)).size === 0);
    const [{ unacknowledged }] = await t.cp.dataSource.query<Array<{ unacknowledged: number }>>(
      `SELECT count(*)::int AS unacknowledged FROM task_status_updates u JOIN tasks t ON t.id = u.task_ref
        WHERE t.framework_id = $1 AND t.task_id = 'paced' AND u.acknowledged_at IS NULL`,
      [id],
    );
    expect(unacknowledged).toBe(0);
  });

  it('kills the tasks of a framework that stays away past its failover timeout', async () => {
    const { advance } = await onManualClock();
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'gone', roles: ['r'], failoverTimeoutSeconds: 5 });
    const id = defined(f.s.frameworkId);
    await advance(100, f);
    await f.s.launch(await f.nextOffer(), [task('doomed', { cpus: 1, mem: 64 })]);
    await until(() => f.states('doomed').includes('RUNNING'));
    f.s.close();
    const state = async () => (await frameworkView(id)).state;
    await until(async () => (await state()) === 'DISCONNECTED');
    await advance(4_500); // within the failover timeout: kept
    expect(await state()).toBe('DISCONNECTED');
    await advance(1_000); // past it
    await until(async () => (await state()) === 'COMPLETED');
    await until(async () => (await tasksOf(id)).items[0].state === 'KILLED');
    const again = new Scheduler({ master: t.cp.url, token: ADMIN_TOKEN, framework: { name: 'gone', roles: ['r'], frameworkId: id } });
    closers.push(() => again.close());
    await expect(again.start()).rejects.toMatchObject({ code: 'FRAMEWORK_COMPLETED' });
  });

  it('marks an agent silent past the timeout unreachable: offers rescinded, tasks LOST', async () => {
    const { advance } = await onManualClock({ config: { agentTimeout: 2 } });
    const ag = await agent('fragile', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'watcher', roles: ['r'] });
    await advance(100, f);
    await f.s.launch(await f.nextOffer(), [task('on-fragile', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    await until(() => f.states('on-fragile').includes('RUNNING'));
    await advance(100, f);
    const pending = await f.nextOffer();
    ag.close();
    // Disconnected: its offers are rescinded at once, its tasks kept until the timeout.
    await until(() => f.rescinded.includes(pending.id));
    await advance(1_500, f);
    expect(f.states('on-fragile')).not.toContain('LOST');
    expect((await agentView(ag.agentId ?? '')).status).toBe('REACHABLE');
    await advance(1_500, f); // past the timeout, and past the next check (every second)
    await until(() => f.states('on-fragile').includes('LOST'));
    expect(f.updates.find((u) => u.state === 'LOST')).toMatchObject({ reason: 'REASON_AGENT_REMOVED', source: 'SOURCE_MASTER' });
    expect((await agentView(ag.agentId ?? '')).status).toBe('UNREACHABLE');
  });

  it('gives agents a heartbeat interval three of which fit in the agent timeout: one that heartbeats as told stays reachable', async () => {
    const { advance } = await onManualClock({ config: { agentTimeout: 2 } });
    const ag = await agent('steady', { cpus: 1, mem: 64 });
    const interval = ag.heartbeatIntervalSeconds ?? 0;
    expect(interval).toBeCloseTo(2 / 3);
    // Over three timeouts, a heartbeat each interval.
    for (let at = 0; at < 6; at += interval) {
      await advance(interval * 1000);
      await ag.beat();
    }
    expect((await agentView(ag.agentId ?? '')).status).toBe('REACHABLE');
  });

  it('after a restart gives known agents the re-registration timeout: one back after the heartbeat timeout keeps its task, one that stays away is unreachable with its task LOST', async () => {
    const resources = Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON();
    const returning = await agent('returning', { cpus: 4, mem: 4096 });
    const absent = await agent('absent', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'patient', roles: ['r'], failoverTimeoutSeconds: 60 });
    const offers = new Map<string, Offer>();
    await until(() => {
      for (const o of f.offers.splice(0)) offers.set(o.hostname, o);
      return offers.size === 2;
    });
    await f.s.launch(defined(offers.get('returning')), [task('kept', { cpus: 1, mem: 64 })]);
    await f.s.launch(defined(offers.get('absent')), [task('lost', { cpus: 1, mem: 64 })]);
    await until(() => f.states('kept').includes('RUNNING') && f.states('lost').includes('RUNNING'));
    for (const c of closers.splice(0)) c();

    const first = t;
    await first.stop();
    // The restarted control plane runs on a manual clock: the test moves time itself.
    const clock = new ManualClock();
    const second = await startTestControlPlane({
      databaseUrl: first.databaseUrl,
      config: { allocationInterval: 0.1, agentTimeout: 3, agentReregisterTimeout: 6 },
      clock,
    });
    t = { ...second, close: () => second.close().then(() => first.close()) };
    const status = async (id: string) => (await agentView(id)).status;

    await clock.advance(4_000); // past the heartbeat timeout, within the re-registration timeout
    expect([await status(defined(returning.agentId)), await status(defined(absent.agentId))]).toEqual(['REACHABLE', 'REACHABLE']);
    const again = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'returning', resources });
    closers.push(() => again.close());
    again.agentId = returning.agentId;
    for (const [id, task] of returning.tasks) again.tasks.set(id, task);
    await again.register();

    await clock.advance(2_500); // the absent agent past its re-registration timeout; the returning one within its heartbeat timeout
    await until(async () => (await status(defined(absent.agentId))) === 'UNREACHABLE');
    expect(await status(defined(returning.agentId))).toBe('REACHABLE');
    const tasks = (await tasksOf()).items;
    expect(Object.fromEntries(tasks.map((x) => [x.taskId, x.state]))).toEqual({ kept: 'RUNNING', lost: 'LOST' });
    const lost = await taskView(tasks.find((x) => x.taskId === 'lost')?.id ?? '');
    expect(lost.history?.at(-1)).toMatchObject({ state: 'LOST', reason: 'REASON_AGENT_REMOVED' });
    expect(lost.history?.at(-1)?.message).toMatch(/not registered again within 6 s/);
  });

  it('tears a framework down through the API: tasks killed, recorded in the audit log', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'operator-stopped', roles: ['r'], failoverTimeoutSeconds: 60 });
    const id = defined(f.s.frameworkId);
    await f.s.launch(await f.nextOffer(), [task('t', { cpus: 1, mem: 64 })]);
    await until(() => f.states('t').includes('RUNNING'));
    const torn = await ok(t.client.POST('/api/v1/frameworks/{id}/teardown', { params: { path: { id } } }));
    expect(torn.state).toBe('COMPLETED');
    await until(async () => (await tasksOf(id)).items[0].state === 'KILLED');
    expect((await auditOf({ action: 'framework.teardown' })).items[0]).toMatchObject({
      targetId: id,
      after: { state: 'COMPLETED' },
    });
    const unknown = await refused(t.client.POST('/api/v1/frameworks/{id}/teardown', { params: { path: { id: 'nope' } } }), 404);
    expect(unknown.code).toBe('FRAMEWORK_NOT_FOUND');
  });

  it('answers reconciliation with the latest state of each task, LOST for unknown ones', async () => {
    await agent('h1', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'reconciler', roles: ['r'] });
    await f.s.launch(await f.nextOffer(), [task('known', { cpus: 1, mem: 64 })]);
    await until(() => f.states('known').includes('RUNNING'));
    f.updates.length = 0;
    await f.s.reconcile(['known', 'ghost']);
    await until(() => f.updates.length >= 2);
    expect(f.states('known')).toEqual(['RUNNING']);
    expect(f.states('ghost')).toEqual(['LOST']);
    f.updates.length = 0;
    await f.s.reconcile();
    await until(() => f.updates.length >= 1);
    expect(f.updates.map((u) => u.taskId)).toEqual(['known']);
  });

  it('reserves and unreserves for a framework through the reservations service: same rules, audit entries, the agent offered anew', async () => {
    await agent('res-host', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'reserver', roles: ['team'] });
    const offer = await f.nextOffer();
    const reserve = Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON();
    await f.s.accept([offer.id], [{ type: 'RESERVE', resources: reserve }]);
    // Recorded under the framework's principal (the admin's token subscribed it), as Mesos records reservation.principal.
    const actor = 'admin';

    const reservations = await ok(t.client.GET('/api/v1/reservations'));
    expect(reservations.items).toHaveLength(1);
    expect(reservations.items[0]).toMatchObject({ role: 'team', principal: actor, resourcesText: 'cpus(team):2;mem(team):1024' });
    const created = await auditOf({ action: 'reservation.create', actor });
    expect(created.items).toEqual([expect.objectContaining({ actor, action: 'reservation.create', targetId: reservations.items[0].id })]);

    // Offered again with the reserved resources for the role (the rest of the agent may come
    // back first, in an offer of its own).
    const holdsReservation = (o: (typeof f.offers)[number]) => !Resources.of(o.resources).reserved('team').isEmpty();
    await until(() => f.offers.some(holdsReservation), 'an offer of the reserved resources');
    const next = defined(f.offers.find(holdsReservation));
    expect(Resources.of(next.resources).reserved('team').toString()).toBe('cpus(team):2;mem(team):1024');

    // More than is reserved cannot be unreserved; nothing changes.
    const tooMuch = Resources.fromScalars({ cpus: 3 }).withReservation('team').toJSON();
    await expect(f.s.accept([next.id], [{ type: 'UNRESERVE', resources: tooMuch }])).rejects.toMatchObject({
      code: 'INSUFFICIENT_OFFERED_RESOURCES',
    });
    expect((await ok(t.client.GET('/api/v1/reservations'))).items).toHaveLength(1);

    // The refused accept changed nothing: its offer is still outstanding, and answers it now.
    await f.s.accept([next.id], [{ type: 'UNRESERVE', resources: Resources.of(next.resources).reserved('team').toJSON() }]);
    expect((await ok(t.client.GET('/api/v1/reservations'))).items).toHaveLength(0);
    const removed = await auditOf({ action: 'reservation.remove', actor });
    expect(removed.items).toHaveLength(1);
  });

  it("records a framework's reservation under its principal, so that an ACL naming it keeps another principal's UNRESERVE off it", async () => {
    const [tokenA, tokenB] = [await t.principal('fw-a', 'FRAMEWORK'), await t.principal('fw-b', 'FRAMEWORK')];
    const acls = await t.request('PUT', '/api/v1/acls', {
      permissive: true,
      unreserve_resources: [
        { principals: { values: ['fw-b'] }, reserver_principals: { values: ['fw-b'] } },
        { principals: { values: ['fw-b'] }, reserver_principals: { type: 'NONE' } },
      ],
    });
    expect(acls.status).toBe(200);
    await agent('shared-host', { cpus: 4, mem: 4096 });
    const a = await framework({ name: 'a', roles: ['shared'] }, { token: tokenA });
    await a.s.accept([(await a.nextOffer()).id], [{ type: 'RESERVE', resources: Resources.fromScalars({ cpus: 2, mem: 1024 }).toJSON() }]);
    const [reservation] = (await ok(t.client.GET('/api/v1/reservations'))).items;
    expect(reservation).toMatchObject({ role: 'shared', principal: 'fw-a' });

    // fw-a goes; fw-b, in the same role, is offered the reserved resources and may not unreserve them.
    a.s.close();
    const b = await framework({ name: 'b', roles: ['shared'] }, { token: tokenB });
    await until(() => b.offers.some((o) => !Resources.of(o.resources).reserved('shared').isEmpty()));
    const offer = defined(b.offers.find((o) => !Resources.of(o.resources).reserved('shared').isEmpty()));
    const reserved = Resources.of(offer.resources).reserved('shared').toJSON();
    await expect(b.s.accept([offer.id], [{ type: 'UNRESERVE', resources: reserved }])).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await ok(t.client.GET('/api/v1/reservations'))).items).toEqual([
      expect.objectContaining({ id: reservation.id, principal: 'fw-a' }),
    ]);
    expect((await auditOf({ action: 'access.denied', actor: 'fw-b' })).items).toHaveLength(1);
  });

  it('refuses a CREATE the ACL create_volumes refuses for the role, with an access.denied entry, and makes no volume', async () => {
    const token = await t.principal('fw-vol', 'FRAMEWORK');
    const acls = await t.request('PUT', '/api/v1/acls', {
      permissive: true,
      create_volumes: [{ principals: { values: ['fw-vol'] }, roles: { type: 'NONE' } }],
    });
    expect(acls.status).toBe(200);
    await agent('volume-host', { cpus: 2, mem: 1024, disk: 1024 });
    const f = await framework({ name: 'vol', roles: ['vol'] }, { token });
    await f.s.accept([(await f.nextOffer()).id], [{ type: 'RESERVE', resources: [{ name: 'disk', value: 100, reservation: 'vol' }] }]);
    await until(() => f.offers.some((o) => Resources.of(o.resources).reserved('vol').get('disk') >= 100));
    const offer = defined(f.offers.find((o) => Resources.of(o.resources).reserved('vol').get('disk') >= 100));
    await expect(
      f.s.accept([offer.id], [{ type: 'CREATE', volumes: [{ id: 'v1', disk: 100, containerPath: 'data', mode: 'RW' }] }]),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await ok(t.client.GET('/api/v1/volumes'))).items).toEqual([]);
    expect((await auditOf({ action: 'access.denied', actor: 'fw-vol' })).items).toHaveLength(1);
  });

  it('follows the whitelist: agents not on it are not offered', async () => {
    await agent('listed', { cpus: 2, mem: 1024 });
    await agent('unlisted', { cpus: 2, mem: 1024 });
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: ['listed'] } }));
    const f = await framework({ name: 'w', roles: ['r'] });
    await until(() => f.offers.length > 0);
    await cyclesPass();
    const hosts = f.offers.map((o) => o.hostname);
    expect(hosts).toEqual(['listed']);
    await ok(t.client.PUT('/api/v1/whitelist', { body: { hostnames: null } }));
    await until(() => f.offers.some((o) => o.hostname === 'unlisted'));
  });

  it('offers reserved resources only to their role, and caps offers at a quota limit', async () => {
    const ag = await agent('resv', { cpus: 4, mem: 4096 });
    await ok(
      t.client.POST('/api/v1/reservations', { body: { agentId: ag.agentId ?? '', role: 'gold', resources: 'cpus:3;mem:1024' } }),
      201,
    );
    await ok(t.client.PUT('/api/v1/quota', { body: { quotas: [{ role: 'silver', limits: { cpus: 0.5 } }], force: false } }));
    const silver = await framework({ name: 'silver', roles: ['silver'] });
    const offer = await silver.nextOffer();
    const got = Resources.of(offer.resources);
    expect(got.reserved().isEmpty()).toBe(true);
    expect(got.get('cpus')).toBe(0.5);
    const gold = await framework({ name: 'gold', roles: ['gold'] });
    const goldOffer = await gold.nextOffer();
    expect(Resources.of(goldOffer.resources).reserved('gold').toString()).toBe('cpus(gold):3;mem(gold):1024');
  });

  it('sends inverse offers for a scheduled machine, records the answer, and shuts its agent down once it is DOWN', async () => {
    const host = await agent('maint-host', { cpus: 4, mem: 4096 });
    const f = await framework({ name: 'tenant', roles: ['r'] });
    const inverse: Array<{ id: string; hostname: string }> = [];
    f.s.on('inverseOffers', (list) => inverse.push(...list));
    await f.s.launch(await f.nextOffer(), [task('resident', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    const pending = await f.nextOffer();
    await ok(
      t.client.PUT('/api/v1/maintenance/schedule', {
        body: {
          windows: [
            {
              machines: [{ hostname: 'maint-host' }],
              unavailability: { start: new Date(Date.now() + 3600_000).toISOString(), durationSeconds: 600 },
            },
          ],
        },
      }),
    );
    await until(() => inverse.length > 0);
    expect(inverse[0].hostname).toBe('maint-host');
    await f.s.answerInverseOffer(inverse[0].id, true);
    const status = await ok(t.client.GET('/api/v1/maintenance/status'));
    expect(status.drainingMachines[0].statuses).toEqual([expect.objectContaining({ frameworkId: f.s.frameworkId, status: 'ACCEPT' })]);
    await ok(t.client.POST('/api/v1/maintenance/start', { body: { machines: [{ hostname: 'maint-host' }] } }));
    await until(() => f.rescinded.includes(pending.id));
    // Shut down as Mesos does: its task LOST, the agent disconnected, nothing offered from it.
    await until(() => f.states('resident').includes('LOST'));
    await until(() => !host.socket.connected);
    f.offers.length = 0;
    await cyclesPass();
    expect(f.offers).toHaveLength(0);
    await ok(t.client.POST('/api/v1/maintenance/stop', { body: { machines: [{ hostname: 'maint-host' }] } }));
    // Up again: the agent registers and is offered.
    const back = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, {
      hostname: 'maint-host',
      agentId: host.agentId,
      resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON(),
    });
    closers.push(() => back.close());
    await back.register();
    await f.nextOffer();
  });

  it('streams agents, offers, answers, task updates and cycles to operators on /events', async () => {
    const { io } = await import('socket.io-client');
    const events: Array<{ event: string; payload: Record<string, unknown> }> = [];
    const operator = io(`${t.cp.url}/events`, {
      auth: { token: ADMIN_TOKEN },
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
    });
    closers.push(() => operator.close());
    operator.onAny((event: string, payload: Record<string, unknown>) => events.push({ event, payload }));
    await new Promise<void>((resolve, reject) => {
      operator.once('connect', resolve);
      operator.once('connect_error', reject);
    });
    const ag = await agent('streamed', { cpus: 2, mem: 1024 });
    const f = await framework({ name: 'streamed', roles: ['r'] });
    const offer = await f.nextOffer();
    // The agent answers the launch with STARTING, then RUNNING.
    await f.s.launch(offer, [{ taskId: 'seen', name: 'x', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 1 }] }]);
    const seen = (event: string, match: (p: Record<string, unknown>) => boolean) =>
      events.some((e) => e.event === event && match(e.payload));
    await until(() => seen('task.updated', (p) => p.taskId === 'seen' && p.state === 'RUNNING'));
    expect(seen('agent.added', (p) => p.agentId === ag.agentId)).toBe(true);
    expect(seen('framework.added', (p) => p.frameworkId === f.s.frameworkId)).toBe(true);
    expect(seen('offer.created', (p) => p.offerId === offer.id)).toBe(true);
    expect(seen('offer.closed', (p) => p.offerId === offer.id && p.state === 'ACCEPTED')).toBe(true);
    expect(seen('cycle', (p) => Number(p.offerCount) >= 1)).toBe(true);
  });

  it('prunes history past the retention: old cycles with their shares and closed offers; outstanding and recent offers stay', async () => {
    // On a manual clock: no cycle runs between the counts and the prunes below.
    const { advance } = await onManualClock();
    await agent('prune', { cpus: 2, mem: 1024 });
    const f = await framework({ name: 'pruned', roles: ['r'] });
    await advance(100, f);
    const kept = await f.nextOffer();
    await f.s.decline([kept.id], { refuseSeconds: 0 });
    await advance(100, f);
    const outstanding = await f.nextOffer();
    const db = t.cp.dataSource;
    const count = async (sql: string) => Number((await db.query<Array<{ n: string }>>(sql))[0].n);
    // Everything so far is made old (the cycles made old are the ones checked below).
    const [old] = await db.query<[Array<{ id: string }>, number]>(
      `UPDATE allocation_cycles SET started_at = now() - interval '30 days' RETURNING id`,
    );
    const cycles = old.map((c) => `'${c.id}'`).join(', ');
    expect(old.length).toBeGreaterThanOrEqual(2);
    await db.query(`UPDATE offers SET created_at = now() - interval '30 days'`);
    const master = t.cp.app.get(Retention);
    const removed = await master.prune({ history: new Date(Date.now() - 86_400_000) });
    expect(removed.cycles).toBe(old.length);
    expect(removed.offers).toBeGreaterThanOrEqual(1);
    expect(await count(`SELECT count(*) AS n FROM allocation_cycles WHERE id IN (${cycles})`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM allocation_shares WHERE cycle_id IN (${cycles})`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM allocation_cycles WHERE started_at < now() - interval '1 day'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM offers WHERE id = '${kept.id}'`)).toBe(0);
    // The outstanding offer is kept, still listed as outstanding, and can still be accepted.
    const listed = await offersOf({ state: 'OUTSTANDING' });
    expect(listed.items.map((o) => o.id)).toContain(outstanding.id);
    await f.s.launch(outstanding, [
      { taskId: 'after-prune', name: 'x', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 1 }] },
    ]);
    expect((await offersOf({ state: 'OUTSTANDING' })).items.map((o) => o.id)).not.toContain(outstanding.id);
    expect((await master.prune({ history: new Date(Date.now() - 86_400_000) })).offers).toBe(1);
  });

  it('prunes tasks ended before the task retention with their status updates; live tasks and unacknowledged ends stay until the framework completes', async () => {
    const ag = await agent('ends', { cpus: 4, mem: 4096 });
    ag.finishImmediately = true;
    /** One framework has the agent's offers at a time: `from` suppresses and hands back what it holds until `to` has one. */
    const handOver = async (from: Recorder, to: Recorder) => {
      await from.s.suppress();
      await until(async () => {
        if (from.offers.length)
          await from.s.decline(
            from.offers.splice(0).map((o) => o.id),
            { refuseSeconds: 0 },
          );
        return to.offers.length > 0;
      });
    };
    const acked = await framework({ name: 'acked', roles: ['r'] });
    await acked.s.launch(await acked.nextOffer(), [task('done', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    await until(() => acked.states('done').includes('FINISHED'));
    const silent = await framework({ name: 'silent', roles: ['r'] }, { autoAcknowledge: false });
    await handOver(acked, silent);
    await silent.s.launch(await silent.nextOffer(), [task('unread', { cpus: 1, mem: 64 })], { refuseSeconds: 0 });
    await until(() => silent.states('unread').includes('FINISHED'));
    ag.finishImmediately = false;
    await acked.s.revive();
    await handOver(silent, acked);
    await acked.s.launch(await acked.nextOffer(), [task('live', { cpus: 1, mem: 64 })]);
    await until(() => acked.states('live').includes('RUNNING'));
    const db = t.cp.dataSource;
    const rows = async (sql: string) => db.query<Array<Record<string, unknown>>>(sql);
    const taskIds = async () => (await rows('SELECT task_id FROM tasks ORDER BY task_id')).map((r) => r.task_id);
    await until(
      async () =>
        (
          await rows(
            `SELECT 1 FROM task_status_updates u JOIN tasks t ON t.id = u.task_ref WHERE t.task_id IN ('done', 'live') AND u.acknowledged_at IS NULL`,
          )
        ).length === 0,
    );
    await db.query(`UPDATE tasks SET updated_at = now() - interval '30 days'`);
    const master = t.cp.app.get(Retention);
    const dayAgo = { tasks: new Date(Date.now() - 86_400_000) };

    expect((await master.prune(dayAgo)).tasks).toBe(1);
    expect(await taskIds()).toEqual(['live', 'unread']);
    expect(await rows('SELECT 1 FROM task_status_updates u WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = u.task_ref)')).toEqual([]);
    // A framework that completes will never read its updates: its ended tasks go too.
    await silent.s.teardown();
    await until(async () => (await frameworkView(silent.s.frameworkId ?? '')).state === 'COMPLETED');
    expect((await master.prune(dayAgo)).tasks).toBe(1);
    expect(await taskIds()).toEqual(['live']);
    // Nothing recent goes.
    await db.query(`UPDATE tasks SET updated_at = now()`);
    await acked.s.kill('live');
    await until(() => acked.states('live').includes('KILLED'));
    expect((await master.prune(dayAgo)).tasks).toBe(0);
    expect(await taskIds()).toEqual(['live']);
  });

  it('forgets agents unreachable or gone past the agent retention once none of their tasks is live or kept; others stay', async () => {
    const db = t.cp.dataSource;
    const statusOf = async (id: string) =>
      (await db.query<Array<{ status: string }>>('SELECT status FROM agents WHERE id = $1', [id]))[0]?.status ?? 'forgotten';
    const gone = defined((await agent('forget-gone', { cpus: 1, mem: 256 })).agentId);
    await ok(t.client.POST('/api/v1/agents/{id}/drain', { params: { path: { id: gone } }, body: { markGone: true } }));
    await until(async () => (await statusOf(gone)) === 'GONE');
    const reachable = await agent('forget-reachable', { cpus: 1, mem: 256 });
    const f = await framework({ name: 'forgetter', roles: ['r'] });
    await f.s.launch(await f.nextOffer(), [task('on-reachable', { cpus: 1, mem: 64 })]);
    await until(() => f.states('on-reachable').includes('RUNNING'));
    // An agent unreachable for a month with a task on it out of contact, as the database keeps them.
    const [{ id: unreachable }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO agents SELECT (jsonb_populate_record(NULL::agents, to_jsonb(a) || jsonb_build_object(
         'id', gen_random_uuid(), 'hostname', 'forget-unreachable', 'status', 'UNREACHABLE'))).* FROM agents a WHERE a.id = $1 RETURNING id`,
      [reachable.agentId],
    );
    await db.query(
      `INSERT INTO tasks SELECT (jsonb_populate_record(NULL::tasks, to_jsonb(t) || jsonb_build_object(
         'id', gen_random_uuid(), 'task_id', 'out-of-contact', 'agent_id', $1::text, 'state', 'UNREACHABLE'))).* FROM tasks t WHERE t.task_id = 'on-reachable'`,
      [unreachable],
    );
    await db.query(`UPDATE agents SET last_seen_at = now() - interval '30 days'`);
    const retention = t.cp.app.get(Retention);
    const dayAgo = new Date(Date.now() - 86_400_000);
    const before = { tasks: dayAgo, agents: dayAgo };

    // The gone agent goes; the unreachable one stays while its task is not ended; a reachable one always stays.
    expect((await retention.prune(before)).agents).toBe(1);
    expect([await statusOf(gone), await statusOf(unreachable), await statusOf(defined(reachable.agentId))]).toEqual([
      'forgotten',
      'UNREACHABLE',
      'REACHABLE',
    ]);
    const listed = await ok(t.client.GET('/api/v1/agents', { params: { query: {} } }));
    expect(listed.items.map((a) => a.hostname).sort()).toEqual(['forget-reachable', 'forget-unreachable']);
    // Its task ended recently: kept by the task retention, and the agent with it.
    await db.query(`UPDATE tasks SET state = 'LOST', updated_at = now() WHERE task_id = 'out-of-contact'`);
    expect(await retention.prune(before)).toMatchObject({ tasks: 0, agents: 0 });
    // Ended long ago: the task goes, then the agent, in one pruning.
    await db.query(`UPDATE tasks SET updated_at = now() - interval '30 days' WHERE task_id = 'out-of-contact'`);
    expect(await retention.prune(before)).toMatchObject({ tasks: 1, agents: 1 });
    expect(await statusOf(unreachable)).toBe('forgotten');
    // Within the agent retention nothing goes.
    await db.query(`UPDATE agents SET status = 'UNREACHABLE' WHERE id = $1`, [reachable.agentId]);
    await db.query(`DELETE FROM tasks WHERE agent_id = $1`, [reachable.agentId]);
    await db.query(`UPDATE agents SET last_seen_at = now()`);
    expect((await retention.prune(before)).agents).toBe(0);
  });

  it('offers again when it leads again after stepping down while a cycle was booked', async () => {
    const { clock, advance } = await onManualClock();
    const master = t.cp.app.get(Master);
    // Registering books a cycle on the clock; the term ends before it starts.
    await agent('before', { cpus: 2, mem: 1024 });
    await master.stepDown();
    await clock.advance(100);
    await master.lead();
    await agent('after', { cpus: 2, mem: 1024 });
    const f = await framework({ name: 're-elected', roles: ['r'] });
    await advance(100, f);
    expect(f.offers.map((o) => o.hostname)).toEqual(['after']);
  });

  it('rescinds the offers of an agent an operator deactivates, and offers it again once reactivated', async () => {
    const ag = await agent('toggle', { cpus: 2, mem: 1024 });
    const f = await framework({ name: 'toggler', roles: ['r'] });
    const offer = await f.nextOffer();
    await ok(t.client.POST('/api/v1/agents/{id}/deactivate', { params: { path: { id: ag.agentId ?? '' } } }));
    await until(() => f.rescinded.includes(offer.id));
    expect(f.rescinded).toContain(offer.id);
    await ok(t.client.POST('/api/v1/agents/{id}/reactivate', { params: { path: { id: ag.agentId ?? '' } } }));
    const again = await f.nextOffer();
    expect([again.agentId, again.id === offer.id]).toEqual([ag.agentId, false]);
  });
});
