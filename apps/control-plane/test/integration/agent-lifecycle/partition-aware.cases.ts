/**
 * PARTITION_AWARE frameworks get Mesos's newer task states: a task whose agent goes silent is
 * UNREACHABLE (not LOST) and RUNNING again when the agent comes back; reconciling a task the
 * control plane does not know answers UNKNOWN (LOST for other frameworks).
 */
import { Resources } from '@arbiter/allocator';
import { ClusterState } from '../../../src/master/cluster-state';
import { Kernel } from '../../../src/kernel/kernel';
import { ManualClock } from '@arbiter/test-support';
import { ADMIN_TOKEN, closeStarted, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

let t: TestControlPlane;
const clock = new ManualClock();
const closers: Array<() => void> = [];
beforeAll(
  async () => (t = await startTestControlPlane({ clock, config: { allocationInterval: 0.1, agentTimeout: 5 } })),
  STARTUP_TIMEOUT_MS,
);
afterAll(async () => {
  for (const c of closers) c();
  await closeStarted(t);
}, STARTUP_TIMEOUT_MS);

const advance = async (ms: number) => {
  const state = t.cp.app.get(ClusterState);
  const before = state.cycles;
  await clock.advance(ms);
  await until(() => state.cycles > before);
  await t.cp.app.get(Kernel).settled();
};
const framework = async (name: string, capabilities: Array<'PARTITION_AWARE'>) => {
  const r = new Recorder(t, { name, roles: [name], capabilities, failoverTimeoutSeconds: 3600 });
  closers.push(() => r.s.close());
  await r.s.start();
  return r;
};

it("marks a silent agent's tasks UNREACHABLE for partition-aware frameworks and LOST for the others; back in contact, RUNNING again", async () => {
  const resources = Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON();
  const agent = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'flaky-host', resources });
  closers.push(() => agent.close());
  const agentId = await agent.register();
  const aware = await framework('aware', ['PARTITION_AWARE']);
  const plain = await framework('plain', []);
  await advance(200);
  const task = (id: string) => ({
    taskId: id,
    name: id,
    command: { shell: 'sleep 1000' },
    resources: Resources.fromScalars({ cpus: 1, mem: 64 }).toJSON(),
  });
  // One agent, offered to one framework at a time: what aware leaves goes to plain next cycle.
  await aware.s.launch(await aware.nextOffer(), [task('a1')]);
  await advance(200);
  await plain.s.launch(await plain.nextOffer(), [task('p1')]);
  await until(() => aware.states('a1').includes('RUNNING') && plain.states('p1').includes('RUNNING'));

  // The agent goes silent past its 5 s timeout (its heartbeats stop; the clock moves on).
  agent.close();
  await advance(6000);
  await until(() => aware.states('a1').includes('UNREACHABLE') && plain.states('p1').includes('LOST'), 10_000, 'UNREACHABLE and LOST');

  // It comes back with both tasks running: a1 is RUNNING again; p1 stays LOST (its agent kills it).
  const back = new ProtocolAgent(t.cp.url, ADMIN_TOKEN, { hostname: 'flaky-host', agentId, resources });
  closers.push(() => back.close());
  for (const [fw, id] of [
    [aware, 'a1'],
    [plain, 'p1'],
  ] as const)
    back.tasks.set(id, { frameworkId: defined(fw.s.frameworkId), taskId: id, state: 'RUNNING', resources: task(id).resources });
  await back.register();
  await until(() => aware.states('a1').at(-1) === 'RUNNING', 10_000, `a1 RUNNING again (${aware.states('a1').join()})`);
  expect(aware.states('a1')).toEqual(['STARTING', 'RUNNING', 'UNREACHABLE', 'RUNNING']);
  expect(plain.states('p1').filter((s) => s !== 'STARTING' && s !== 'RUNNING')).toEqual(['LOST']);
});

it('answers reconciliation of an unknown task UNKNOWN to a partition-aware framework, LOST to the others', async () => {
  const aware = await framework('aware-2', ['PARTITION_AWARE']);
  const plain = await framework('plain-2', []);
  await aware.s.reconcile(['nowhere']);
  await plain.s.reconcile(['nowhere']);
  await until(() => aware.states('nowhere').length > 0 && plain.states('nowhere').length > 0);
  expect([aware.states('nowhere'), plain.states('nowhere')]).toEqual([['UNKNOWN'], ['LOST']]);
});
