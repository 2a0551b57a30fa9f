/**
 * The executor client against a local HTTP endpoint that answers as an agent's executor API
 * does (RecordIO events, 202 for calls): what it subscribes with, how it reads events split
 * anywhere, what it keeps until acknowledged and sends again after losing the agent.
 */
import type * as http from 'node:http';
import { type ExecutorEndpoint, recordIO as record, startExecutorEndpoint, until } from '@arbiter/test-support';
import { durationSeconds, Executor } from './executor';
import type { ExecutorTaskInfo } from './executor-types';

let agent: ExecutorEndpoint;
let endpoint: string;
let calls: ExecutorEndpoint['calls'];
let streams: ExecutorEndpoint['streams'];
let server: http.Server;

beforeEach(async () => {
  agent = await startExecutorEndpoint();
  ({ address: endpoint, calls, streams, server } = agent);
});
afterEach(() => agent.close());

const env = (extra: Record<string, string> = {}) => ({
  MESOS_AGENT_ENDPOINT: endpoint,
  MESOS_FRAMEWORK_ID: 'fw-1',
  MESOS_EXECUTOR_ID: 'exec-1',
  MESOS_EXECUTOR_AUTHENTICATION_TOKEN: 'secret-token',
  MESOS_SUBSCRIPTION_BACKOFF_MAX: '50ms',
  ...extra,
});

const TASK: ExecutorTaskInfo = {
  name: 't1',
  task_id: { value: 't1' },
  agent_id: { value: 'agent-1' },
  data: Buffer.from('payload').toString('base64'),
};
const SUBSCRIBED = {
  type: 'SUBSCRIBED',
  subscribed: {
    executor_info: { executor_id: { value: 'exec-1' } },
    framework_info: { name: 'fw' },
    agent_info: { hostname: 'h' },
  },
};

/** Starts the executor and answers its subscription. */
async function subscribe(executor: Executor): Promise<void> {
  const subscribed = executor.start();
  await until(() => streams.length === 1);
  streams[0].write(record(SUBSCRIBED));
  await subscribed;
}

it('subscribes as itself with its token, reads events split anywhere, and keeps updates until acknowledged', async () => {
  const executor = new Executor({ env: env({ MESOS_CHECKPOINT: '1' }) });
  const launched: ExecutorTaskInfo[] = [];
  executor.on('launch', (t) => launched.push(t));
  const subscribed = executor.start();
  await until(() => streams.length === 1);
  expect(calls[0]).toEqual({
    auth: 'Bearer secret-token',
    body: {
      type: 'SUBSCRIBE',
      executor_id: { value: 'exec-1' },
      framework_id: { value: 'fw-1' },
      subscribe: { unacknowledged_tasks: [], unacknowledged_updates: [] },
    },
  });
  // Two events cut in three pieces, one of them inside the length.
  const bytes = record(SUBSCRIBED) + record({ type: 'LAUNCH', launch: { task: TASK } });
  const cut1 = 1;
  const cut2 = bytes.indexOf('LAUNCH') - 3;
  for (const part of [bytes.slice(0, cut1), bytes.slice(cut1, cut2), bytes.slice(cut2)]) streams[0].write(part);
  expect((await subscribed).agent_info.hostname).toBe('h');
  await until(() => launched.length === 1);
  expect(launched[0]).toEqual(TASK);

  await executor.update('t1', 'TASK_RUNNING', { message: 'up', data: Buffer.from('d'), healthy: true, labels: [{ key: 'k', value: 'v' }] });
  const update = calls.at(-1)?.body as unknown as {
    type: string;
    update: { status: { uuid: string; state: string; task_id: { value: string } } };
  };
  expect(update.type).toBe('UPDATE');
  expect(update.update.status).toMatchObject({ state: 'TASK_RUNNING', task_id: { value: 't1' }, source: 'SOURCE_EXECUTOR', message: 'up' });
  expect(update.update.status).toMatchObject({
    data: Buffer.from('d').toString('base64'),
    healthy: true,
    labels: { labels: [{ key: 'k', value: 'v' }] },
  });
  expect(Buffer.from(update.update.status.uuid, 'base64')).toHaveLength(16);

  // The agent restarts before acknowledging: the executor subscribes again with the task and the update.
  streams[0].destroy();
  await until(() => streams.length === 2);
  const again = calls.at(-1)?.body.subscribe as { unacknowledged_tasks: ExecutorTaskInfo[]; unacknowledged_updates: unknown[] };
  expect(again.unacknowledged_tasks).toEqual([TASK]);
  expect(again.unacknowledged_updates).toEqual([{ framework_id: { value: 'fw-1' }, status: update.update.status }]);

  // Acknowledged: neither is sent again.
  streams[1].write(
    record(SUBSCRIBED) + record({ type: 'ACKNOWLEDGED', acknowledged: { task_id: { value: 't1' }, uuid: update.update.status.uuid } }),
  );
  const acked: string[] = [];
  executor.on('acknowledged', (taskId) => acked.push(taskId));
  await until(() => acked.length === 1);
  streams[1].destroy();
  await until(() => streams.length === 3);
  expect(calls.at(-1)?.body.subscribe).toEqual({ unacknowledged_tasks: [], unacknowledged_updates: [] });
  executor.close();
});

it('sends an update again when its request is lost on the way while the subscription stays open', async () => {
  const executor = new Executor({ env: env() });
  await subscribe(executor);
  agent.dropNext('UPDATE', 2);
  await executor.update('t1', 'TASK_KILLED', { message: 'the group was killed' });
  const updates = calls.filter((c) => c.body.type === 'UPDATE').map((c) => (c.body.update as { status: { state: string } }).status.state);
  expect(updates).toEqual(['TASK_KILLED']);
  executor.close();
});

it('sends updates one at a time in the order they were made, even when the first must be sent again', async () => {
  const executor = new Executor({ env: env() });
  await subscribe(executor);
  agent.dropNext('UPDATE', 1);
  await Promise.all([executor.update('t1', 'TASK_KILLING'), executor.update('t1', 'TASK_KILLED')]);
  const updates = calls.filter((c) => c.body.type === 'UPDATE').map((c) => (c.body.update as { status: { state: string } }).status.state);
  expect(updates).toEqual(['TASK_KILLING', 'TASK_KILLED']);
  executor.close();
});

it('sends the updates made while a subscription was on its way once it opens, and says when the agent has them all', async () => {
  const executor = new Executor({ env: env({ MESOS_CHECKPOINT: '1' }) });
  await subscribe(executor);
  await executor.update('t1', 'TASK_RUNNING');
  await executor.delivered();
  // The agent restarts; the executor's next subscription is on its way when its task finishes.
  const release = agent.holdSubscriptions();
  const subscriptions = () => calls.filter((c) => c.body.type === 'SUBSCRIBE');
  streams[0].destroy();
  await until(() => subscriptions().length === 2);
  const finished = executor.update('t1', 'TASK_FINISHED');
  let delivered = false;
  void executor.delivered().then(() => (delivered = true));
  await finished;
  const held = subscriptions()[1].body.subscribe as { unacknowledged_updates: Array<{ status: { state: string } }> };
  expect(held.unacknowledged_updates.map((u) => u.status.state)).toEqual(['TASK_RUNNING']);
  expect(delivered).toBe(false);

  release();
  await until(() => streams.length === 2);
  streams[1].write(record(SUBSCRIBED));
  await until(() => delivered, 'the agent to have every update');
  const sent = calls.filter((c) => c.body.type === 'UPDATE').map((c) => (c.body.update as { status: { state: string } }).status.state);
  expect(sent).toEqual(['TASK_RUNNING', 'TASK_FINISHED']);
  executor.close();
});

it('hands on kills with their grace period, messages and shutdown; sends messages as base64', async () => {
  const executor = new Executor({ env: env() });
  const kills: Array<[string, number | undefined]> = [];
  const messages: string[] = [];
  let shutdown = false;
  executor.on('kill', (id, grace) => kills.push([id, grace]));
  executor.on('message', (data) => messages.push(data.toString()));
  executor.on('shutdown', () => (shutdown = true));
  await subscribe(executor);
  streams[0].write(
    record({ type: 'KILL', kill: { task_id: { value: 't1' }, kill_policy: { grace_period: { nanoseconds: 2_500_000_000 } } } }) +
      record({ type: 'HEARTBEAT' }) +
      record({ type: 'MESSAGE', message: { data: Buffer.from('hello executor').toString('base64') } }) +
      record({ type: 'SHUTDOWN' }),
  );
  await until(() => shutdown);
  expect(kills).toEqual([['t1', 2.5]]);
  expect(messages).toEqual(['hello executor']);

  await executor.message(Buffer.from('hello scheduler'));
  expect(calls.at(-1)?.body).toMatchObject({ type: 'MESSAGE', message: { data: Buffer.from('hello scheduler').toString('base64') } });
});

it('shuts down when it loses the agent and the framework did not ask for checkpointing', async () => {
  const executor = new Executor({ env: env() });
  let shutdown = false;
  executor.on('shutdown', () => (shutdown = true));
  await subscribe(executor);
  streams[0].destroy();
  await until(() => shutdown);
  expect(streams).toHaveLength(1);
});

it('rejects the start when the agent refuses the subscription, with its answer', async () => {
  server.removeAllListeners('request');
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(401).end('wrong token'));
  await expect(new Executor({ env: env() }).start()).rejects.toThrow('the agent refused the subscription (401): wrong token');
});

it('needs the variables the agent sets', () => {
  expect(() => new Executor({ env: { MESOS_FRAMEWORK_ID: 'f' } })).toThrow('MESOS_AGENT_ENDPOINT is not set');
});

it('reads durations as Mesos writes them', () => {
  expect(durationSeconds('5secs')).toBe(5);
  expect(durationSeconds('15mins')).toBe(900);
  expect(durationSeconds('100ms')).toBe(0.1);
  expect(durationSeconds('2')).toBe(2);
  expect(durationSeconds('soon')).toBeUndefined();
  expect(durationSeconds(undefined)).toBeUndefined();
});
