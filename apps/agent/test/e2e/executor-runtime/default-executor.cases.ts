/**
 * The default executor as the agent runs it (bin/default-executor.js, a real process, its tasks
 * real processes), against an endpoint that answers as the agent's executor API: a group runs
 * together and is reported task by task; one failing task kills the others; a kill of one task
 * kills the group; SHUTDOWN ends it; it exits once nothing is left.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ExecutorEndpoint, startExecutorEndpoint, until } from '@arbiter/test-support';

const BIN = path.resolve(__dirname, '../../../bin/default-executor.js');
let agent: ExecutorEndpoint;
let sandbox: string;
let child: ChildProcess | undefined;
let exited: Promise<number | null>;

beforeEach(async () => {
  agent = await startExecutorEndpoint();
  sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-default-executor-'));
});
afterEach(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  await agent.close();
  fs.rmSync(sandbox, { recursive: true, force: true });
});

/** Starts the executor and answers its subscription. */
async function start(): Promise<void> {
  child = spawn(process.execPath, [BIN], {
    env: {
      ...process.env,
      MESOS_AGENT_ENDPOINT: agent.address,
      MESOS_FRAMEWORK_ID: 'fw',
      MESOS_EXECUTOR_ID: 'group-exec',
      MESOS_EXECUTOR_AUTHENTICATION_TOKEN: 'executor-secret',
      MESOS_SANDBOX: sandbox,
      MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD: '3secs',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const proc = child;
  exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  await until(() => agent.streams.length === 1, 30_000, 'the executor subscribed');
  agent.send({
    type: 'SUBSCRIBED',
    subscribed: { executor_info: { executor_id: { value: 'group-exec' } }, framework_info: { name: 'fw' }, agent_info: { hostname: 'h' } },
  });
}

const task = (id: string, shell: string) => ({ name: id, task_id: { value: id }, agent_id: { value: 'a' }, command: { value: shell } });

/** The states reported for each task, in order. */
function states(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of agent.calls) {
    if (c.body.type !== 'UPDATE') continue;
    const status = (c.body.update as { status: { task_id: { value: string }; state: string } }).status;
    (out[status.task_id.value] ??= []).push(status.state);
  }
  return out;
}

it('runs a group together, each task in its own directory of the shared sandbox, and exits once all finished', async () => {
  await start();
  agent.send({
    type: 'LAUNCH_GROUP',
    launch_group: {
      task_group: { tasks: [task('a', 'echo one > out; echo $MESOS_EXECUTOR_SANDBOX > where'), task('b', 'echo two > out')] },
    },
  });
  expect(await exited).toBe(0);
  expect(states()).toEqual({
    a: ['TASK_STARTING', 'TASK_RUNNING', 'TASK_FINISHED'],
    b: ['TASK_STARTING', 'TASK_RUNNING', 'TASK_FINISHED'],
  });
  expect(fs.readFileSync(path.join(sandbox, 'tasks', 'a', 'out'), 'utf8')).toBe('one\n');
  expect(fs.readFileSync(path.join(sandbox, 'tasks', 'a', 'where'), 'utf8')).toBe(`${sandbox}\n`);
  expect(fs.readFileSync(path.join(sandbox, 'tasks', 'b', 'out'), 'utf8')).toBe('two\n');
  // Every call spoke as the executor, with its credential; the tasks did not get the credential.
  expect(new Set(agent.calls.map((c) => c.auth))).toEqual(new Set(['Bearer executor-secret']));
});

it('kills the rest of the group when one task fails', async () => {
  await start();
  agent.send({ type: 'LAUNCH_GROUP', launch_group: { task_group: { tasks: [task('fails', 'exit 3'), task('sleeps', 'sleep 60')] } } });
  expect(await exited).toBe(0);
  const s = states();
  expect(s.fails).toEqual(['TASK_STARTING', 'TASK_RUNNING', 'TASK_FAILED']);
  expect(s.sleeps.at(-1)).toBe('TASK_KILLED');
  const failed = agent.calls.find(
    (c) => c.body.type === 'UPDATE' && (c.body.update as { status: { state: string } }).status.state === 'TASK_FAILED',
  );
  expect((failed?.body.update as { status: { message: string } }).status.message).toBe('the command exited with status 3');
});

it('kills the whole group when one of its tasks is killed, and ends on SHUTDOWN', async () => {
  await start();
  agent.send({ type: 'LAUNCH_GROUP', launch_group: { task_group: { tasks: [task('x', 'sleep 60'), task('y', 'sleep 60')] } } });
  const running = (id: string) => (states()[id] as string[] | undefined)?.includes('TASK_RUNNING') === true;
  await until(() => running('x') && running('y'), 30_000, 'both running');
  agent.send({ type: 'KILL', kill: { task_id: { value: 'x' } } });
  expect(await exited).toBe(0);
  expect(states().x.at(-1)).toBe('TASK_KILLED');
  expect(states().y.at(-1)).toBe('TASK_KILLED');
});

it('ends at once on SHUTDOWN with nothing to run', async () => {
  await start();
  agent.send({ type: 'SHUTDOWN' });
  expect(await exited).toBe(0);
  expect(states()).toEqual({});
});
