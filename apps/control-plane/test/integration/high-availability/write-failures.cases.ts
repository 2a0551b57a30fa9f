/**
 * Writes the database refuses: what the master did in memory still reaches the database once it
 * takes writes again, one bad item of a batch fails alone, and a framework's failover timeout
 * is honoured even when the database was away at the time (all on a manual clock).
 */
import { Resources } from '@arbiter/allocator';
import { PROTOCOL_ERRORS, type StatusUpdate } from '@arbiter/contracts';
import { SchedulerError } from '@arbiter/scheduler-sdk';
import { FrameworkSessionsRepository } from '../../../src/framework-lifecycle/framework-sessions.repository';
import { ClusterState } from '../../../src/master/cluster-state';
import { EventualWrites } from '../../../src/kernel/eventual-writes';
import { Kernel } from '../../../src/kernel/kernel';
import { ManualClock } from '@arbiter/test-support';
import { OffersRepository } from '../../../src/offers/offers.repository';
import { TasksRepository } from '../../../src/tasks/tasks.repository';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { until } from '../../support/until';

/** What the pg driver throws when the server goes away mid-query. */
const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
/** What PostgreSQL answers for a value it cannot store (SQLSTATE 22021). */
const badValue = () => Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });

const task = (taskId: string) => ({
  taskId,
  name: taskId,
  command: { shell: 'sleep 1000' },
  resources: Resources.fromScalars({ cpus: 1, mem: 128 }).toJSON(),
});

let t: TestControlPlane;
let clock: ManualClock;
const closers: Array<() => void> = [];

beforeEach(async () => {
  clock = new ManualClock();
  t = await startTestControlPlane({ clock, config: { allocationInterval: 0.1 } });
});
afterEach(async () => {
  jest.restoreAllMocks();
  for (const c of closers.splice(0)) c();
  await t.close();
});

const agent = async (hostname: string) => {
  const a = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname, resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON() });
  closers.push(() => a.close());
  await a.register();
  return a;
};
const framework = async (name: string, failoverTimeoutSeconds = 0) => {
  const r = new Recorder(t, { name, roles: ['r'], failoverTimeoutSeconds });
  closers.push(() => r.s.close());
  await r.s.start();
  return r;
};
/** Moves the clock and waits for the cycle it brings and the writes in flight. */
const advance = async (ms: number) => {
  const state = t.cp.app.get(ClusterState);
  const before = state.cycles;
  await clock.advance(ms);
  await until(() => state.cycles > before);
  await t.cp.app.get(Kernel).settled();
};
const offerState = async (frameworkId: string, offerId: string) => {
  const page = await ok(t.client.GET('/api/v1/offers', { params: { query: { frameworkId, limit: 500 } } }));
  return page.items.find((o) => o.id === offerId)?.state;
};

it('rescinds an offer whose accept could not be written: the framework is told, the row closes once the database takes writes again, and the resources are offered anew', async () => {
  await agent('h1');
  const a = await framework('a');
  await advance(200);
  const offer = await a.nextOffer();
  const repo = t.cp.app.get(OffersRepository);
  // The accept's write fails (the database went away), and so does the first try to record the rescind.
  jest.spyOn(repo, 'writeAnswers').mockRejectedValueOnce(connectionLost());
  const close = jest.spyOn(repo, 'close').mockRejectedValueOnce(connectionLost());

  const refused = await a.s.launch(offer, [task('t1')]).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(SchedulerError);
  expect((refused as SchedulerError).code).toBe(PROTOCOL_ERRORS.DATABASE_UNAVAILABLE);
  await until(() => a.rescinded.includes(offer.id));
  expect(close).toHaveBeenCalledTimes(1);
  expect(t.cp.app.get(EventualWrites).pending).toBe(1);
  expect(await offerState(a.s.frameworkId ?? '', offer.id)).toBe('OUTSTANDING');

  // The retry after 1 s records it; the whole agent is offered again (no task was launched).
  await advance(1000);
  await until(() => t.cp.app.get(EventualWrites).pending === 0);
  expect(close).toHaveBeenCalledTimes(2);
  expect(await offerState(a.s.frameworkId ?? '', offer.id)).toBe('RESCINDED');
  await advance(5000);
  const again = await a.nextOffer();
  expect(Resources.of(again.resources).get('cpus')).toBe(4);
  const tasks = await ok(t.client.GET('/api/v1/tasks', { params: { query: { frameworkId: a.s.frameworkId } } }));
  expect(tasks.items).toHaveLength(0);
});

it('writes the other launches of a batch when the database refuses one of them, and answers that one INVALID_MESSAGE', async () => {
  await agent('h1');
  await agent('h2');
  const a = await framework('a');
  const b = await framework('b');
  await advance(200);
  const [oa, ob] = [await a.nextOffer(), await b.nextOffer()];
  const repo = t.cp.app.get(OffersRepository);
  const writeAnswers = repo.writeAnswers.bind(repo);
  const batches: number[] = [];
  jest.spyOn(repo, 'writeAnswers').mockImplementation(async (offers, tasks) => {
    batches.push(tasks.length);
    if (tasks.some((x) => x.name === 'poison')) throw badValue();
    return writeAnswers(offers, tasks);
  });
  // Both accepts wait behind one write in the launches lane, so they go out in one batch.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  void t.cp.app.get(Kernel).write('launches', () => gate);
  const good = a.s.launch(oa, [task('fine')]);
  const bad = b.s.launch(ob, [{ ...task('poison'), name: 'poison' }]).catch((err: unknown) => err);
  await until(() => t.cp.app.get(Kernel).waitingForLanes >= 2);
  open();

  await expect(good).resolves.toBeDefined();
  const refused = await bad;
  expect((refused as SchedulerError).code).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
  // One batch of two, then each alone.
  expect(batches).toEqual([2, 1, 1]);
  await until(async () => {
    const tasks = await ok(t.client.GET('/api/v1/tasks', { params: { query: { frameworkId: a.s.frameworkId } } }));
    return tasks.items.some((x) => x.taskId === 'fine' && x.state === 'RUNNING');
  });
  expect(await offerState(b.s.frameworkId ?? '', ob.id)).toBe('RESCINDED');
});

it('records the other status updates of a batch when the database refuses one of them', async () => {
  const h1 = await agent('h1');
  const a = await framework('a');
  await advance(200);
  await a.s.launch(await a.nextOffer(), [task('t1'), task('t2'), task('t3')]);
  await until(() => ['t1', 't2', 't3'].every((id) => a.states(id).includes('RUNNING')));
  const repo = t.cp.app.get(TasksRepository);
  const record = repo.recordUpdates.bind(repo);
  const batches: number[] = [];
  jest.spyOn(repo, 'recordUpdates').mockImplementation(async (items) => {
    batches.push(items.length);
    if (items.some((i) => i.update.taskId === 't2')) throw badValue();
    return record(items);
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  void t.cp.app.get(Kernel).write('statuses', () => gate);
  const frameworkId = a.s.frameworkId ?? '';
  const sent = ['t1', 't2', 't3'].map((id) => h1.status(frameworkId, id, 'FINISHED').catch((err: unknown) => err));
  await until(() => t.cp.app.get(Kernel).waitingForLanes >= 3);
  open();
  const [r1, r2, r3] = await Promise.all(sent);
  expect((r1 as StatusUpdate).state).toBe('FINISHED');
  expect((r3 as StatusUpdate).state).toBe('FINISHED');
  expect((r2 as Error).message).toMatch(/database refused/);
  expect(batches).toEqual([3, 1, 1, 1]);
  await until(() => a.states('t1').includes('FINISHED') && a.states('t3').includes('FINISHED'));
  expect(a.states('t2')).toEqual(['STARTING', 'RUNNING']);
});

it('tears a framework down after its failover timeout when the database was away as it disconnected and as the timeout ran out', async () => {
  await agent('h1');
  const a = await framework('a', 5);
  const frameworkId = a.s.frameworkId ?? '';
  await advance(200);
  const sessions = t.cp.app.get(FrameworkSessionsRepository);
  // The database is away: recording the disconnection fails, and so does the first teardown.
  jest.spyOn(sessions, 'markDisconnected').mockRejectedValueOnce(connectionLost());
  const completed = jest.spyOn(sessions, 'markCompleted').mockRejectedValueOnce(connectionLost());
  a.s.close();
  await until(() => t.cp.app.get(ClusterState).frameworks.get(frameworkId)?.socket === undefined);
  // The failed write is queued for a retry once its rejection comes back (after the turn that made it).
  await until(() => t.cp.app.get(EventualWrites).pending === 1, 'the disconnection queued for a retry');
  await t.cp.app.get(Kernel).settled();
  expect(t.cp.app.get(EventualWrites).pending).toBe(1);

  await advance(1000); // the disconnection is recorded on the retry
  expect((await ok(t.client.GET('/api/v1/frameworks/{id}', { params: { path: { id: frameworkId } } }))).state).toBe('DISCONNECTED');
  await advance(4000); // the failover timeout runs out: the teardown fails
  await until(() => completed.mock.calls.length === 1);
  expect((await ok(t.client.GET('/api/v1/frameworks/{id}', { params: { path: { id: frameworkId } } }))).state).toBe('DISCONNECTED');
  await advance(5000); // tried again
  await until(() => completed.mock.calls.length === 2);
  await until(
    async () => (await ok(t.client.GET('/api/v1/frameworks/{id}', { params: { path: { id: frameworkId } } }))).state === 'COMPLETED',
  );
});
