import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type TaskEvent, TaskRunner } from '../src/tasks';
import { UpdateJournal } from '../src/journal';
import type { StatusUpdate } from '@arbiter/contracts';
import { until as untilWithin } from '../../control-plane/test/support/until';

/** Polls `check` until it holds: the tasks are real processes, observed as they run. */
const until = (check: () => boolean, ms = 15_000) => untilWithin(check, ms, 'the task condition');

/** The task file a sandbox keeps (its state and its process). */
const readTaskFile = (sandbox: string) =>
  JSON.parse(fs.readFileSync(path.join(sandbox, 'task.json'), 'utf8')) as { state: string; pid: number };

describe('task runner (real processes)', () => {
  let dir: string;
  let events: TaskEvent[];
  let runner: TaskRunner;
  const states = (taskId: string) => events.filter((e) => e.taskId === taskId).map((e) => e.state);
  const last = (taskId: string) => events.filter((e) => e.taskId === taskId).at(-1);
  const launch = (
    taskId: string,
    command: { shell: string } | { value: string; arguments?: string[] },
    extra: { mem?: number; memLimitBytes?: number; env?: Record<string, string> } = {},
  ) =>
    runner.launch({
      frameworkId: 'fw',
      task: {
        taskId,
        name: taskId,
        command,
        env: extra.env,
        resources: [{ name: 'cpus', value: 0.1 }, ...(extra.mem ? [{ name: 'mem', value: extra.mem }] : [])],
      },
      ...(extra.memLimitBytes ? { memLimitBytes: extra.memLimitBytes } : {}),
    });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-agent-test-'));
    events = [];
    runner = new TaskRunner(dir, (e) => events.push(e));
  });
  afterEach(async () => {
    await runner.killAll();
    runner.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs a command in its sandbox: STARTING, RUNNING, FINISHED, with stdout and stderr in files', async () => {
    launch('hello', { shell: 'echo hi from $ARBITER_TASK_ID; echo oops >&2; pwd' }, { env: { GREETING: 'x' } });
    await until(() => states('hello').includes('FINISHED'));
    expect(states('hello')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    const sandbox = runner.sandboxOf('fw', 'hello');
    expect(fs.readFileSync(path.join(sandbox, 'stdout'), 'utf8')).toBe(`hi from hello\n${sandbox}\n`);
    expect(fs.readFileSync(path.join(sandbox, 'stderr'), 'utf8')).toBe('oops\n');
  });

  it('runs an executable with arguments', async () => {
    launch('argv', { value: '/bin/echo', arguments: ['a b', 'c'] });
    await until(() => states('argv').includes('FINISHED'));
    expect(fs.readFileSync(path.join(runner.sandboxOf('fw', 'argv'), 'stdout'), 'utf8')).toBe('a b c\n');
  });

  it('reports a non-zero exit as FAILED with the status', async () => {
    launch('bad', { shell: 'exit 3' });
    await until(() => states('bad').includes('FAILED'));
    expect(last('bad')).toMatchObject({ state: 'FAILED', reason: 'REASON_COMMAND_EXITED', message: 'the command exited with status 3' });
  });

  it('kills a task past its memory limit and says why', async () => {
    launch(
      'hog',
      { value: process.execPath, arguments: ['-e', 'const a=[];setInterval(()=>a.push(Buffer.alloc(16*1024*1024,1)),20)'] },
      { memLimitBytes: 96 * 1024 * 1024 },
    );
    await until(() => states('hog').includes('FAILED'));
    expect(last('hog')?.reason).toBe('REASON_CONTAINER_LIMITATION_MEMORY');
    expect(last('hog')?.message).toMatch(/memory limit exceeded: used \d+ MB of 96 MB/);
  });

  it('takes the limit from the mem resource when none is given', async () => {
    launch(
      'hog2',
      { value: process.execPath, arguments: ['-e', 'const a=[];setInterval(()=>a.push(Buffer.alloc(16*1024*1024,1)),20)'] },
      { mem: 80 },
    );
    await until(() => states('hog2').includes('FAILED'));
    expect(last('hog2')?.reason).toBe('REASON_CONTAINER_LIMITATION_MEMORY');
  });

  it('kills on request with SIGTERM, and with SIGKILL after the grace period when SIGTERM is ignored', async () => {
    launch('sleeper', { shell: 'sleep 100' });
    launch('stubborn', { shell: 'trap "" TERM; while true; do sleep 0.1; done' });
    await until(() => states('sleeper').includes('RUNNING') && states('stubborn').includes('RUNNING'));
    // Wall-clock on purpose: the grace period is real time between two signals to real processes.
    const t0 = Date.now();
    runner.kill('fw', 'sleeper', 5);
    runner.kill('fw', 'stubborn', 1);
    await until(() => states('sleeper').includes('KILLED'));
    expect(Date.now() - t0).toBeLessThan(900);
    await until(() => states('stubborn').includes('KILLED'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(runner.kill('fw', 'sleeper')).toBe(false);
  });

  it('kills every task at once and resolves when their ends are recorded; once closed, it records nothing', async () => {
    launch('one', { shell: 'sleep 100' });
    launch('two', { shell: 'trap "" TERM; while true; do sleep 0.1; done' });
    await until(() => states('one').includes('RUNNING') && states('two').includes('RUNNING'));
    await runner.killAll();
    expect([last('one')?.state, last('two')?.state]).toEqual(['KILLED', 'KILLED']);
    expect(readTaskFile(runner.sandboxOf('fw', 'two')).state).toBe('KILLED');

    // A task that ends after close (its sandbox gone, say) is left to a restarted agent.
    launch('left', { shell: 'sleep 100' });
    await until(() => states('left').includes('RUNNING'));
    const { pid } = readTaskFile(runner.sandboxOf('fw', 'left'));
    runner.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.kill(-pid, 'SIGKILL');
    // The task's shell is this process's own child: Node reaps it (its /proc entry goes) in the
    // same event-loop step that runs the child's 'exit' handlers, the runner's among them. Once
    // the entry is gone, the closed runner has seen the exit and must have recorded nothing.
    await until(() => !fs.existsSync(`/proc/${pid}`));
    expect(states('left')).toEqual(['STARTING', 'RUNNING']);
  });

  it('recovers after a restart: a task still running is watched again, one that ended reports its exit status', async () => {
    // 'long' runs until the test lets it go (a file appears), so it is still running when the
    // second runner recovers, however slow the machine.
    const go = path.join(dir, 'go');
    launch('long', { shell: `while [ ! -e '${go}' ]; do sleep 0.02; done; exit 0` });
    launch('short', { shell: 'exit 7' });
    await until(() => states('long').includes('RUNNING') && states('short').includes('FAILED'));
    // A second runner on the same work dir stands for the restarted agent.
    runner.close();
    const events2: TaskEvent[] = [];
    // Pretend the first agent never saw 'short' end: put its checkpoint back to RUNNING.
    const shortCp = path.join(runner.sandboxOf('fw', 'short'), 'task.json');
    fs.writeFileSync(shortCp, JSON.stringify({ ...JSON.parse(fs.readFileSync(shortCp, 'utf8')), state: 'RUNNING' }));
    const again = new TaskRunner(dir, (e) => events2.push(e));
    again.recover();
    // 'short' ended while no agent watched: reported at once from its recorded exit status.
    expect(again.live().map((t) => t.taskId)).toEqual(['long']);
    expect(events2.some((e) => e.taskId === 'long')).toBe(false);
    fs.writeFileSync(go, '');
    await until(() => events2.some((e) => e.taskId === 'long'));
    expect(events2.find((e) => e.taskId === 'short')).toMatchObject({ state: 'FAILED', message: 'exited with status 7' });
    expect(events2.find((e) => e.taskId === 'long')).toMatchObject({ state: 'FINISHED' });
    again.close();
  });
});

describe('update journal', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-journal-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps updates across instances, in order, until removed', () => {
    const u = (n: number) =>
      ({
        updateUuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        frameworkId: 'f',
        taskId: 't',
        agentId: 'a',
        state: 'RUNNING',
        timestamp: new Date().toISOString(),
        source: 'SOURCE_AGENT',
      }) as StatusUpdate;
    const a = new UpdateJournal(dir);
    for (let i = 0; i < 12; i++) a.append(u(i));
    a.remove(a.pending()[0].file);
    const b = new UpdateJournal(dir);
    expect(b.pending().map((p) => p.update.updateUuid)).toEqual(Array.from({ length: 11 }, (_, i) => u(i + 1).updateUuid));
    b.append(u(99));
    expect(b.pending().at(-1)?.update.updateUuid).toBe(u(99).updateUuid);
    expect(b.size).toBe(12);
  });
});
