import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Isolator } from '../../src/containerizer/isolators/cgroups';
import { type TaskEvent, TaskRunner } from '../../src/executors/task-runner';
import { defined, until } from '@arbiter/test-support';
import { turnsDuring } from '../support/event-loop';

/** The agent's record of a task (its state and its process), kept outside the sandbox. */
/** Work directories outside /tmp as root: each task has a /tmp of its own, where the test's files would not be. */
const TEST_ROOT = process.getuid?.() === 0 ? '/var/tmp' : os.tmpdir();
const readTaskFile = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as { state: string; pid: number };

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
    dir = fs.mkdtempSync(path.join(TEST_ROOT, 'arbiter-agent-test-'));
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
    expect(last('hog')?.message).toMatch(/memory limit exceeded: the kernel killed the task at its limit of 96 MB/);
  });

  it('without cgroups, polls the memory of the process group', async () => {
    const posix = new TaskRunner(path.join(dir, 'posix'), (e) => events.push(e), { isolator: Isolator.posix() });
    posix.launch({
      frameworkId: 'fw',
      task: {
        taskId: 'polled',
        name: 'polled',
        command: { value: process.execPath, arguments: ['-e', 'const a=[];setInterval(()=>a.push(Buffer.alloc(16*1024*1024,1)),20)'] },
        resources: [{ name: 'cpus', value: 0.1 }],
      },
      memLimitBytes: 96 * 1024 * 1024,
    });
    await until(() => states('polled').includes('FAILED'));
    expect(last('polled')?.reason).toBe('REASON_CONTAINER_LIMITATION_MEMORY');
    expect(last('polled')?.message).toMatch(/used \d+ MB of 96 MB/);
    posix.close();
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

  it('kills a task asked to die in the same turn it was launched: its process, already forked, does not outlive the KILLED', async () => {
    launch('hasty', { shell: 'exec sleep 30' });
    const sandbox = runner.sandboxOf('fw', 'hasty');
    runner.kill('fw', 'hasty', 1);
    await until(() => states('hasty').includes('KILLED'));
    /** Processes of this task (its wrapper, its command): those whose environment names its sandbox. */
    const processes = () =>
      fs.readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`ARBITER_SANDBOX=${sandbox}`);
        } catch {
          return false;
        }
      });
    await until(() => processes().length === 0, 'no process of the task left');
    expect(runner.kill('fw', 'hasty')).toBe(false);
  });

  it('kills on request with SIGTERM, and with SIGKILL after the grace period when SIGTERM is ignored', async () => {
    launch('sleeper', { shell: 'touch "$ARBITER_SANDBOX/started"; sleep 100' });
    launch('stubborn', { shell: 'trap "" TERM; touch "$ARBITER_SANDBOX/trapped"; while true; do sleep 0.1; done' });
    // RUNNING is reported once the wrapper is forked, before the command runs (a SIGTERM that
    // reaches the wrapper before it started the command leaves it to the SIGKILL after the
    // grace period); each command says when it runs, the stubborn one once it ignores SIGTERM.
    const said = (id: string, file: string) => fs.existsSync(path.join(runner.sandboxOf('fw', id), file));
    // And the runner has seen both start (RUNNING): a kill before that ends a task at once, killed during its launch.
    await until(() => said('sleeper', 'started') && said('stubborn', 'trapped'));
    await until(() => states('sleeper').includes('RUNNING') && states('stubborn').includes('RUNNING'));
    // Wall-clock on purpose: the grace period is real time between two signals to real processes.
    const t0 = Date.now();
    runner.kill('fw', 'sleeper', 5);
    runner.kill('fw', 'stubborn', 1);
    await until(() => states('sleeper').includes('KILLED'));
    expect(Date.now() - t0).toBeLessThan(900);
    await until(() => states('stubborn').includes('KILLED'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect([last('sleeper')?.reason, last('stubborn')?.reason]).toEqual(['REASON_TASK_KILLED', 'REASON_TASK_KILLED']);
    expect(runner.kill('fw', 'sleeper')).toBe(false);
  });

  it('kills every task at once and resolves when their ends are recorded; once closed, it records nothing', async () => {
    launch('one', { shell: 'sleep 100' });
    launch('two', { shell: 'trap "" TERM; while true; do sleep 0.1; done' });
    await until(() => states('one').includes('RUNNING') && states('two').includes('RUNNING'));
    await runner.killAll();
    expect([last('one')?.state, last('two')?.state]).toEqual(['KILLED', 'KILLED']);
    expect(readTaskFile(runner.checkpointOf('fw', 'two')).state).toBe('KILLED');

    // A task that ends after close (its sandbox gone, say) is left to a restarted agent.
    launch('left', { shell: 'sleep 100' });
    await until(() => states('left').includes('RUNNING'));
    const { pid } = readTaskFile(runner.checkpointOf('fw', 'left'));
    runner.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.kill(-pid, 'SIGKILL');
    // The task's shell is this process's own child: Node reaps it (its /proc entry goes) in the
    // same event-loop step that runs the child's 'exit' handlers, the runner's among them. Once
    // the entry is gone, the closed runner has seen the exit and must have recorded nothing.
    await until(() => !fs.existsSync(`/proc/${pid}`));
    expect(states('left')).toEqual(['STARTING', 'RUNNING']);
  });

  it('recovers a task recorded by an agent before hashed names, from its record and sandbox where they are', () => {
    const work = path.join(dir, 'legacy');
    const sandbox = path.join(work, 'frameworks', 'fw', 'tasks', 'old');
    fs.mkdirSync(sandbox, { recursive: true });
    fs.writeFileSync(path.join(sandbox, '.exit_status'), '3\n');
    fs.mkdirSync(path.join(work, 'checkpoints', 'fw'), { recursive: true });
    const spec = { taskId: 'old', name: 'old', command: { shell: 'exit 3' }, resources: [] };
    fs.writeFileSync(path.join(work, 'checkpoints', 'fw', 'old.json'), JSON.stringify({ frameworkId: 'fw', spec, state: 'RUNNING' }));
    const after: TaskEvent[] = [];
    const again = new TaskRunner(work, (e) => after.push(e));
    again.recover();
    again.close();
    expect(after).toEqual([
      { frameworkId: 'fw', taskId: 'old', state: 'FAILED', reason: 'REASON_COMMAND_EXITED', message: 'exited with status 3' },
    ]);
    expect(fs.readdirSync(path.join(work, 'checkpoints', 'fw'))).toEqual(['old.json']);
    const third = new TaskRunner(work, (e) => after.push(e));
    third.recover();
    third.close();
    expect(after).toHaveLength(1);
  });

  it('reports again after a restart an end its journal could not take (the checkpoint keeps it), and only once', async () => {
    const work = path.join(dir, 'unjournaled');
    const first = new TaskRunner(work, (e) => {
      events.push(e);
      return e.state !== 'FINISHED';
    });
    first.launch({ frameworkId: 'fw', task: { taskId: 'brief', name: 'brief', command: { shell: 'exit 0' }, resources: [] } });
    await until(() => states('brief').includes('FINISHED'));
    first.close();
    const after: TaskEvent[] = [];
    const again = new TaskRunner(work, (e) => after.push(e));
    again.recover();
    expect(after).toEqual([
      { frameworkId: 'fw', taskId: 'brief', state: 'FINISHED', reason: 'REASON_COMMAND_EXITED', message: 'exited with status 0' },
    ]);
    again.close();
    const third = new TaskRunner(work, (e) => after.push(e));
    third.recover();
    expect(after).toHaveLength(1);
    third.close();
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
    const shortCp = runner.checkpointOf('fw', 'short');
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

/**
 * What a task cannot do (run as root with cgroups v1, as CI does; on a machine without them the
 * first test fails and says so rather than passing without checking anything).
 */
describe('task isolation (as root, with cgroups)', () => {
  let dir: string;
  let events: TaskEvent[];
  let runner: TaskRunner;
  const states = (taskId: string) => events.filter((e) => e.taskId === taskId).map((e) => e.state);
  const last = (taskId: string) => events.filter((e) => e.taskId === taskId).at(-1);
  const launch = (
    frameworkId: string,
    taskId: string,
    shell: string,
    extra: { resources?: Array<{ name: string; value: number }>; user?: string; memLimitBytes?: number } = {},
  ) =>
    runner.launch({
      frameworkId,
      task: {
        taskId,
        name: taskId,
        command: { shell },
        resources: extra.resources ?? [{ name: 'cpus', value: 0.1 }],
        ...(extra.user ? { user: extra.user } : {}),
      },
      ...(extra.memLimitBytes ? { memLimitBytes: extra.memLimitBytes } : {}),
    });
  const stdout = (frameworkId: string, taskId: string) =>
    fs.readFileSync(path.join(runner.sandboxOf(frameworkId, taskId), 'stdout'), 'utf8');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(TEST_ROOT, 'arbiter-isolation-test-'));
    events = [];
    runner = new TaskRunner(dir, (e) => events.push(e), { diskCheckIntervalMs: 0 });
  });
  afterEach(async () => {
    await runner.killAll();
    runner.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs as root with cgroups v1 memory, cpu and pids here, and tasks as their framework's dynamic user by default", () => {
    expect(process.getuid?.()).toBe(0);
    expect([runner.containerizer.cgroups.mode, runner.containerizer.cgroups.controllers, runner.containerizer.taskUser]).toEqual([
      'cgroups-v1',
      ['memory', 'cpu', 'pids'],
      'dynamic',
    ]);
  });

  it('gives a task its spec environment and the documented variables, nothing of the agent', async () => {
    process.env.ARBITER_TEST_SECRET = 'agent-secret-value';
    try {
      runner.launch({
        frameworkId: 'fw',
        task: {
          taskId: 'env',
          name: 'env',
          command: { shell: 'env | sort' },
          env: { MINE: 'yes' },
          resources: [{ name: 'cpus', value: 0.1 }],
        },
      });
      await until(() => states('env').includes('FINISHED'));
    } finally {
      delete process.env.ARBITER_TEST_SECRET;
    }
    const sandbox = runner.sandboxOf('fw', 'env');
    const names = stdout('fw', 'env')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => l.slice(0, l.indexOf('=')));
    // What sh itself sets (PWD, SHLVL, _) and the task's own.
    expect(names.filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n))).toEqual(
      [
        'ARBITER_FRAMEWORK_ID',
        'ARBITER_SANDBOX',
        'ARBITER_TASK_ID',
        'HOME',
        'LANG',
        'LOGNAME',
        'MESOS_SANDBOX',
        'MINE',
        'PATH',
        'USER',
      ].sort(),
    );
    expect(stdout('fw', 'env')).toContain(`HOME=${sandbox}\n`);
    expect(stdout('fw', 'env')).toMatch(/^USER=arbiter-\d+$/m);
    expect(stdout('fw', 'env')).not.toContain('agent-secret-value');
  });

  it("cannot read the agent's environment, its journal or checkpoints, nor another user's sandbox", async () => {
    fs.mkdirSync(path.join(dir, 'updates'), { mode: 0o700 });
    launch('fw-a', 'keeper', `echo secret > "$ARBITER_SANDBOX/secret"; sleep 100`);
    await until(() => fs.existsSync(path.join(runner.sandboxOf('fw-a', 'keeper'), 'secret')));
    const probes = {
      environ: `cat /proc/${process.pid}/environ`,
      cmdline: `cat /proc/${process.pid}/cmdline >/dev/null && echo readable`,
      journal: `echo forged > ${dir}/updates/forged.json`,
      checkpoints: `ls ${dir}/checkpoints`,
      sandbox: `cat ${runner.sandboxOf('fw-a', 'keeper')}/secret`,
    };
    for (const [name, shell] of Object.entries(probes)) launch('fw-b', name, shell, { user: 'daemon' });
    await until(() => Object.keys(probes).every((n) => states(n).some((s) => s === 'FAILED' || s === 'FINISHED')));
    // The command line is world-readable on Linux: tokens are never put there (see the agent's --token-file).
    expect(Object.fromEntries(Object.keys(probes).map((n) => [n, last(n)?.state]))).toEqual({
      environ: 'FAILED',
      cmdline: 'FINISHED',
      journal: 'FAILED',
      checkpoints: 'FAILED',
      sandbox: 'FAILED',
    });
    expect(fs.existsSync(path.join(dir, 'updates', 'forged.json'))).toBe(false);
    expect(fs.statSync(runner.sandboxOf('fw-a', 'keeper')).mode & 0o777).toBe(0o700);
  });

  it('keeps a task that escapes its process group with setsid inside its memory limit, and ends all of it', async () => {
    const hog = `${process.execPath} -e "const a=[];setInterval(()=>a.push(Buffer.alloc(16*1024*1024,1)),20)"`;
    launch('fw', 'escape', `setsid ${hog} & echo $! > "$ARBITER_SANDBOX/child"; sleep 100`, { memLimitBytes: 64 * 1024 * 1024 });
    await until(() => states('escape').includes('FAILED'));
    expect(last('escape')).toMatchObject({ reason: 'REASON_CONTAINER_LIMITATION_MEMORY' });
    const child = Number(fs.readFileSync(path.join(runner.sandboxOf('fw', 'escape'), 'child'), 'utf8'));
    await until(() => !fs.existsSync(`/proc/${child}`));
    const cgroup = defined(runner.cgroupOf('fw', 'escape'));
    await until(() => !fs.existsSync(defined(cgroup.dirs.memory)));
  });

  it('holds a CPU burner to its cpus with the CFS quota', async () => {
    launch('fw', 'burn', 'while :; do :; done', { resources: [{ name: 'cpus', value: 0.1 }] });
    await until(() => states('burn').includes('RUNNING'));
    const cgroup = defined(runner.cgroupOf('fw', 'burn'));
    const cpuDir = defined(cgroup.dirs.cpu);
    expect(fs.readFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('10000');
    // Throttled in most periods: it would use a whole core, and may use a tenth (on a busy
    // machine it is not even scheduled in some periods, which are then not throttled either).
    await until(() => runner.containerizer.cgroups.throttledPeriods(cgroup) >= 10);
    const stat = fs.readFileSync(path.join(cpuDir, 'cpu.stat'), 'utf8');
    const periods = Number(/nr_periods (\d+)/.exec(stat)?.[1]);
    const throttled = Number(/nr_throttled (\d+)/.exec(stat)?.[1]);
    expect(throttled / periods).toBeGreaterThan(0.5);
  });

  it('kills a task whose sandbox grows past its disk', async () => {
    launch('fw', 'filler', 'head -c 12000000 /dev/zero > "$ARBITER_SANDBOX/fill"; touch "$ARBITER_SANDBOX/done"; sleep 100', {
      resources: [
        { name: 'cpus', value: 0.1 },
        { name: 'disk', value: 5 },
      ],
    });
    await until(() => fs.existsSync(path.join(runner.sandboxOf('fw', 'filler'), 'done')));
    await runner.limits.checkDisk();
    await until(() => states('filler').includes('FAILED'));
    expect(last('filler')?.reason).toBe('REASON_CONTAINER_LIMITATION_DISK');
    expect(last('filler')?.message).toMatch(/uses 1[12] MB of 5 MB/);
  });

  it('measures a sandbox of 20,000 files while its event loop keeps turning', async () => {
    launch('fw', 'many', 'mkdir many && cd many && seq 1 20000 | xargs touch && touch "$ARBITER_SANDBOX/done"; sleep 100', {
      resources: [
        { name: 'cpus', value: 1 },
        { name: 'disk', value: 1000 },
      ],
    });
    await until(() => fs.existsSync(path.join(runner.sandboxOf('fw', 'many'), 'done')), 60_000);
    // A blocking walk would let the event loop turn once at most.
    const { turns } = await turnsDuring(() => runner.limits.checkDisk());
    expect(turns).toBeGreaterThan(20_000 / 128);
    expect(states('many')).toEqual(['STARTING', 'RUNNING']);
  }, 90_000);

  it('removes, at start, the cgroups of tasks it has no record of (an agent killed before it could), and their processes', async () => {
    launch('fw', 'orphan', 'sleep 600');
    await until(() => states('orphan').includes('RUNNING'));
    const cgroup = defined(runner.cgroupOf('fw', 'orphan'));
    const memDir = defined(cgroup.dirs.memory);
    const pids = runner.containerizer.cgroups.pids(cgroup);
    expect(pids.length).toBeGreaterThan(0);
    runner.close();
    fs.rmSync(runner.checkpointOf('fw', 'orphan'));
    const again = new TaskRunner(dir, () => undefined, { diskCheckIntervalMs: 0 });
    again.recover();
    await until(() => pids.every((pid) => !fs.existsSync(`/proc/${pid}`)) && !fs.existsSync(memDir));
    again.close();
  });

  it('fails a task whose user does not exist, saying so', async () => {
    launch('fw', 'ghost', 'true', { user: 'no-such-user-x' });
    await until(() => states('ghost').includes('FAILED'));
    expect(last('ghost')).toMatchObject({ reason: 'REASON_TASK_USER_INVALID', message: "no OS user 'no-such-user-x' on this machine" });
  });
});
