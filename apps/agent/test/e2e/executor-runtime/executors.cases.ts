/**
 * Executors with real processes and a control plane's /agents namespace (FakeControlPlane): an
 * executor written against the executor HTTP API (fixtures/http-executor.js, JSON and protobuf)
 * runs several tasks in one process, is killed, shut down, restarted around, and is refused
 * when it speaks for another executor.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import type { Agent, AgentOptions } from '../../../src/agent';
import type { FakeControlPlane } from '../../support/fake-control-plane';
import { executorBed } from '../../support/executor-bed';
import { post } from '../../support/executor-calls';

const until = (check: () => boolean, what = 'the executor condition') => untilWithin(check, 20_000, what);
const FIXTURE = path.join(__dirname, '../fixtures', 'http-executor.js');
const PROTO_DIR = path.resolve(__dirname, '../../../src/executors/api');
const MESOS_PROTO_DIR = path.dirname(require.resolve('@arbiter/contracts/proto/mesos-v1.proto'));
const PROTOBUFJS = require.resolve('protobufjs', { paths: [PROTO_DIR] });
const MESOS_FRAMEWORK = path.dirname(require.resolve('mesos-framework/package.json'));
interface Subscribed {
  executor_info: { executor_id: unknown };
  framework_info: { id: unknown };
  agent_info: unknown;
  container_id: { value: string };
}
const b64 = (s: string) => Buffer.from(s).toString('base64');

const executorSpec = (executorId: string, mode: 'json' | 'protobuf' = 'json', extra: Partial<ExecutorSpec> = {}): ExecutorSpec => ({
  executorId,
  type: 'CUSTOM',
  command: { value: process.execPath, arguments: [FIXTURE, mode] },
  env: { TEST_PROTOBUFJS: PROTOBUFJS, TEST_PROTO_DIR: PROTO_DIR, TEST_MESOS_PROTO_DIR: MESOS_PROTO_DIR },
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: 128 },
  ],
  ...extra,
});

const taskOn = (executor: ExecutorSpec, taskId: string, data?: string, frameworkId = 'fw'): LaunchTask => ({
  frameworkId,
  task: { taskId, name: taskId, executor, resources: [{ name: 'cpus', value: 0.1 }], ...(data ? { data: b64(data) } : {}) },
});

describe('executors (real processes)', () => {
  const bed = executorBed('arbiter-executors-');
  let cp: FakeControlPlane;
  beforeEach(() => (cp = bed.cp));
  const agentOn = (extra: Partial<AgentOptions> = {}) => bed.agentOn(extra);
  const events = (agent: Agent, frameworkId: string, executorId: string) => {
    const run = agent.executors.find(frameworkId, executorId);
    const file = run ? path.join(run.container.sandbox, 'events.log') : '';
    return file && fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  };
  const count = (agent: Agent, fw: string, ex: string, event: string) => events(agent, fw, ex).filter((e) => e.event === event).length;

  it('runs three tasks in one executor process (JSON): launches, updates, acknowledgements, a kill, and the Mesos environment', async () => {
    const agent = await agentOn();
    const e1 = executorSpec('e1');
    cp.launch(taskOn(e1, 't1', 'finish'));
    cp.launch(taskOn(e1, 't2'));
    cp.launch(taskOn(e1, 't3'));
    await until(() => cp.states('t1').includes('FINISHED') && cp.states('t2').includes('RUNNING') && cp.states('t3').includes('RUNNING'));
    expect(cp.states('t1')).toEqual(['RUNNING', 'FINISHED']);
    expect(agent.executors.runs.size).toBe(1);
    expect(count(agent, 'fw', 'e1', 'SUBSCRIBED')).toBe(1);
    expect(count(agent, 'fw', 'e1', 'LAUNCH')).toBe(3);
    // Every update is acknowledged to the executor once the control plane has it.
    await until(() => count(agent, 'fw', 'e1', 'ACKNOWLEDGED') === 4, 'four acknowledgements');
    const updateIds = new Set(cp.statuses.map((s) => s.updateUuid));
    expect(updateIds.size).toBe(4);
    const subscribed = events(agent, 'fw', 'e1').find((e) => e.subscribed)?.subscribed as Subscribed;
    expect(subscribed.executor_info.executor_id).toEqual({ value: 'e1' });
    expect(subscribed.framework_info.id).toEqual({ value: 'fw' });
    expect(subscribed.agent_info).toMatchObject({ hostname: 'test-host', id: { value: 'agent-1' } });
    expect(subscribed.container_id.value).toBe(agent.executors.find('fw', 'e1')?.containerId);

    expect(await cp.call('kill', { frameworkId: 'fw', taskId: 't2' })).toEqual({ ok: true });
    await until(() => cp.states('t2').includes('KILLED'));
    expect(cp.states('t3')).toEqual(['RUNNING']);
    expect(agent.registration().executors).toEqual([{ frameworkId: 'fw', executorId: 'e1', resources: e1.resources }]);
  });

  it('an executor killed with SIGKILL takes its unfinished tasks to TASK_FAILED (REASON_EXECUTOR_TERMINATED) and is reported, even to a control plane that does not answer', async () => {
    cp.answerExecutorCalls = false;
    const agent = await agentOn();
    const e1 = executorSpec('e1');
    cp.launch(taskOn(e1, 'a'));
    cp.launch(taskOn(e1, 'b', 'finish'));
    await until(() => cp.states('a').includes('RUNNING') && cp.states('b').includes('FINISHED'));
    const pid = agent.executors.find('fw', 'e1')?.container.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await until(() => cp.states('a').includes('FAILED'));
    expect(cp.last('a')).toMatchObject({ state: 'FAILED', reason: 'REASON_EXECUTOR_TERMINATED' });
    expect(cp.states('b')).toEqual(['RUNNING', 'FINISHED']);
    expect(agent.executors.runs.size).toBe(0);
    // The exit is sent again until the control plane answers it; status updates went on meanwhile.
    cp.answerExecutorCalls = true;
    await until(() => cp.executorExits.length === 1, 'the exit reported');
    expect(cp.executorExits[0]).toMatchObject({ frameworkId: 'fw', executorId: 'e1', reason: 'REASON_EXECUTOR_TERMINATED' });
    // A later task naming it starts a new one.
    cp.launch(taskOn(e1, 'c', 'finish'));
    await until(() => cp.states('c').includes('FINISHED'));
  }, 40_000);

  it('speaks protobuf, and carries framework messages both ways', async () => {
    const agent = await agentOn();
    const e1 = executorSpec('pb', 'protobuf');
    cp.launch(taskOn(e1, 'p1', 'finish'));
    cp.launch(taskOn(e1, 'p2'));
    await until(() => cp.states('p1').includes('FINISHED') && cp.states('p2').includes('RUNNING'));
    await until(() => count(agent, 'fw', 'pb', 'ACKNOWLEDGED') === 3, 'acknowledgements');
    expect(await cp.call('frameworkMessage', { frameworkId: 'fw', executorId: 'pb', data: b64('hello') })).toEqual({ ok: true });
    await until(() => cp.executorMessages.length === 1, 'the echo');
    expect(cp.executorMessages[0]).toEqual({ frameworkId: 'fw', executorId: 'pb', data: b64('echo:hello') });
    expect(await cp.call('frameworkMessage', { frameworkId: 'fw', executorId: 'nope', data: b64('x') })).toMatchObject({ ok: false });
    // An update's data, health, check status and labels reach the control plane, marked as the executor's.
    cp.launch(taskOn(e1, 'p3', 'rich'));
    await until(() => cp.states('p3').includes('RUNNING'));
    expect(cp.last('p3')).toMatchObject({
      source: 'SOURCE_EXECUTOR',
      data: b64('state'),
      healthy: true,
      checkStatus: { type: 'COMMAND', exitCode: 2 },
      labels: [{ key: 'phase', value: 'warm' }],
    });
    expect(cp.last('p1')).toMatchObject({ source: 'SOURCE_EXECUTOR' });
    expect(cp.last('p1')).not.toHaveProperty('data');
  });

  it('SHUTDOWN: the executor ends its tasks and exits; one that does not is killed after its grace period', async () => {
    const agent = await agentOn();
    cp.launch(taskOn(executorSpec('e1'), 's1'));
    cp.launch(
      taskOn(executorSpec('stubborn', 'json', { command: { shell: 'trap "" TERM; sleep 60' }, shutdownGracePeriodSeconds: 0.2 }), 's2'),
    );
    await until(() => cp.states('s1').includes('RUNNING') && agent.executors.find('fw', 'stubborn')?.container.pid !== undefined);
    expect(await cp.call('shutdownExecutor', { frameworkId: 'fw', executorId: 'e1' })).toEqual({ ok: true });
    await until(() => cp.states('s1').includes('KILLED') && cp.executorExits.some((e) => e.executorId === 'e1'));
    expect(cp.executorExits.find((e) => e.executorId === 'e1')).toMatchObject({ exitCode: 0 });
    // Never subscribed: killed at once, its task failed.
    expect(await cp.call('shutdownExecutor', { frameworkId: 'fw', executorId: 'stubborn' })).toEqual({ ok: true });
    await until(() => cp.states('s2').includes('FAILED'));
    expect(cp.last('s2')?.reason).toBe('REASON_EXECUTOR_TERMINATED');
  });

  it('kills an executor that does not subscribe within the registration timeout: its tasks TASK_FAILED (REASON_EXECUTOR_REGISTRATION_TIMEOUT)', async () => {
    await agentOn({ executors: { registrationTimeoutMs: 300 } });
    cp.launch(taskOn(executorSpec('silent', 'json', { command: { shell: 'sleep 60' } }), 'r1'));
    await until(() => cp.states('r1').includes('FAILED'));
    expect(cp.last('r1')).toMatchObject({
      reason: 'REASON_EXECUTOR_REGISTRATION_TIMEOUT',
      message: 'the executor did not subscribe within 0.3 s',
    });
    await until(() => cp.executorExits.length === 1);
    expect(cp.executorExits[0]).toMatchObject({ executorId: 'silent', reason: 'REASON_EXECUTOR_REGISTRATION_TIMEOUT' });
  });

  it('refuses calls without its credential (401), for another executor or framework (403), and for another executor’s task (403)', async () => {
    const agent = await agentOn();
    cp.launch(taskOn(executorSpec('a'), 'ta'));
    cp.launch(taskOn(executorSpec('b'), 'tb'));
    cp.launch(taskOn(executorSpec('a'), 'tc', undefined, 'fw2'));
    await until(() => ['ta', 'tb', 'tc'].every((t) => cp.states(t).includes('RUNNING')));
    const a = agent.executors.find('fw', 'a');
    const endpoint = agent.executorApi.endpoint as { host: string; port: number };
    const ids = { framework_id: { value: 'fw' }, executor_id: { value: 'a' } };
    const status = (taskId: string) => ({
      task_id: { value: taskId },
      state: 'TASK_FAILED',
      source: 'SOURCE_EXECUTOR',
      uuid: b64('0123456789abcdef'),
    });
    const update = (taskId: string, who = ids) => ({ ...who, type: 'UPDATE', update: { status: status(taskId) } });
    const as = (token?: string, body: unknown = update('ta')) => post(endpoint, body, token);

    expect((await as(undefined)).status).toBe(401);
    expect((await as('not-a-token')).status).toBe(401);
    const other = await as(a?.token, update('tb'));
    expect(other).toMatchObject({ status: 403 });
    expect(other.body).toMatch(/task 'tb' is not a task of executor 'a'/);
    expect((await as(a?.token, update('tb', { framework_id: { value: 'fw' }, executor_id: { value: 'b' } }))).status).toBe(403);
    expect((await as(a?.token, update('tc', { framework_id: { value: 'fw2' }, executor_id: { value: 'a' } }))).status).toBe(403);
    expect((await post(endpoint, 'not json', a?.token, 'application/json')).status).toBe(400);
    expect((await post(endpoint, '{}', a?.token, 'text/plain')).status).toBe(415);
    expect((await as(a?.token, { ...update('ta'), update: { status: { ...status('ta'), source: 'SOURCE_AGENT' } } })).status).toBe(400);
    // Nothing of it reached the tasks.
    expect(['ta', 'tb', 'tc'].map((t) => cp.last(t)?.state)).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
  });

  it('executors outlive an agent restart: they subscribe again, their tasks stay RUNNING, and the agent registers them', async () => {
    const first = await agentOn({ executors: { subscriptionBackoffMaxMs: 200 } });
    const e1 = executorSpec('e1');
    cp.launch(taskOn(e1, 'k1'));
    cp.launch(taskOn(e1, 'k2'));
    await until(() => cp.states('k1').includes('RUNNING') && cp.states('k2').includes('RUNNING'));
    await until(() => count(first, 'fw', 'e1', 'ACKNOWLEDGED') === 2, 'acknowledgements');
    const pid = first.executors.find('fw', 'e1')?.container.pid;
    await first.stop();
    bed.forget(first);
    const registrations = cp.registrations.length;
    const second = await agentOn({ executors: { subscriptionBackoffMaxMs: 200 } });
    await until(() => cp.registrations.length > registrations, 'registered again');
    expect(cp.registrations.at(-1)?.executors).toEqual([{ frameworkId: 'fw', executorId: 'e1', resources: e1.resources }]);
    await until(() => second.executors.find('fw', 'e1')?.state === 'RUNNING', 'the executor subscribes again');
    expect(second.executors.find('fw', 'e1')?.container.pid).toBe(pid);
    await until(() => count(second, 'fw', 'e1', 'SUBSCRIBED') === 2, 'SUBSCRIBED again');
    expect(cp.states('k1')).toEqual(['RUNNING']);
    // The same executor takes the kill.
    await cp.call('kill', { frameworkId: 'fw', taskId: 'k1' });
    await until(() => cp.states('k1').includes('KILLED'));
    expect(cp.states('k2')).toEqual(['RUNNING']);
  }, 40_000);

  it('after an agent restart, an executor that ended meanwhile fails its tasks, and one that does not subscribe again within the recovery timeout is killed', async () => {
    const first = await agentOn({ executors: { registrationTimeoutMs: 60_000 } });
    cp.launch(taskOn(executorSpec('gone'), 'g1'));
    cp.launch(taskOn(executorSpec('mute', 'json', { command: { shell: 'sleep 60' } }), 'm1'));
    await until(() => cp.states('g1').includes('RUNNING') && first.executors.find('fw', 'mute')?.container.pid !== undefined);
    const gone = first.executors.find('fw', 'gone')?.container.pid ?? 0;
    await first.stop();
    bed.forget(first);
    process.kill(gone, 'SIGKILL');
    await until(
      () => !fs.existsSync(`/proc/${gone}`) || fs.readFileSync(`/proc/${gone}/stat`, 'utf8').includes(') Z'),
      'the executor gone',
    );
    await agentOn({ executors: { recoveryTimeoutMs: 300 } });
    await until(() => cp.states('g1').includes('FAILED') && cp.states('m1').includes('FAILED'));
    expect(cp.last('g1')?.reason).toBe('REASON_EXECUTOR_TERMINATED');
    expect(cp.last('m1')?.reason).toBe('REASON_EXECUTOR_REREGISTRATION_TIMEOUT');
    await until(() => cp.executorExits.length === 2, 'both exits reported');
  }, 40_000);

  it("runs a task under the mesos-framework package's Executor (a third-party client) to TASK_FINISHED", async () => {
    const agent = await agentOn();
    const spec = executorSpec('third-party', 'json', {
      command: { value: process.execPath, arguments: [path.join(__dirname, '../fixtures', 'mesos-framework-executor.js')] },
      env: { TEST_MESOS_FRAMEWORK: MESOS_FRAMEWORK },
    });
    cp.launch(taskOn(spec, 'mf1'));
    await until(() => cp.states('mf1').includes('FINISHED'), 'TASK_FINISHED from the third-party executor');
    expect(cp.states('mf1')).toEqual(['RUNNING', 'FINISHED']);
    expect(agent.executors.find('fw', 'third-party')?.state).toBe('RUNNING');
  });
});
