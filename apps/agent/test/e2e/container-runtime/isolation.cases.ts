/**
 * Tenants on one agent, with real task processes: frameworks that name no user (or `nobody`)
 * still get a uid of their own, so one framework's task cannot read another's process
 * environment or sandbox; an unknown user and root (unless allowed) fail the task; each task has
 * a private /tmp and /dev/shm in its sandbox, counted against its disk and removed when it ends.
 * The CI runs it as root; elsewhere it checks what an agent that is not root does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchTask } from '@arbiter/contracts';
import type { AgentOptions } from '../../../src/agent';
import { DYNAMIC_UID_BASE, DYNAMIC_UID_COUNT } from '../../../src/containerizer/dynamic-users';
import { launchOf } from '../../support/fake-control-plane';
import { agentBed } from '../../support/test-agents';
import { until as untilWithin } from '@arbiter/test-support';

const until = (check: () => boolean, what = 'the agent condition') => untilWithin(check, 15_000, what);
const root = process.getuid?.() === 0;

describe('tenant isolation on one agent', () => {
  // Outside /tmp: each task has a /tmp of its own, where another task's sandbox would not be.
  const bed = agentBed(path.join(root ? '/var/tmp' : os.tmpdir(), 'arbiter-tenants-'), { resources: [{ name: 'cpus', value: 4 }] });
  const { agents } = bed;
  const agentOn = (extra: Partial<AgentOptions> = {}) => bed.agentOn(path.join(bed.dir, 'work'), extra);
  const ended = (taskId: string) => bed.cp.states(taskId).some((s) => ['FINISHED', 'FAILED', 'KILLED'].includes(s));
  const launch = (taskId: string, shell: string, frameworkId: string, task: Partial<LaunchTask['task']> = {}) => {
    const msg = launchOf(taskId, shell, frameworkId);
    bed.cp.launch({ ...msg, task: { ...msg.task, ...task } });
  };
  /** The real uid of a process (/proc/<pid>/status). */
  const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

  it("runs two frameworks that name no user (or nobody) as uids of their own: neither reads the other's environment or files", async () => {
    const agent = agentOn();
    await until(() => bed.cp.registered);
    const keeper = `echo $$ > "$ARBITER_SANDBOX/pid.tmp"; mv "$ARBITER_SANDBOX/pid.tmp" "$ARBITER_SANDBOX/pid"; echo file-secret > "$ARBITER_SANDBOX/secret"; exec sleep 100`;
    launch('a-keeper', keeper, 'fw-a', { env: { A_SECRET: 'env-secret' } });
    launch('c-keeper', keeper, 'fw-c', { user: 'nobody' });
    const sandboxA = agent.tasks.sandboxOf('fw-a', 'a-keeper');
    const pidFile = (sandbox: string) => path.join(sandbox, 'pid');
    await until(() => fs.existsSync(pidFile(sandboxA)) && fs.existsSync(pidFile(agent.tasks.sandboxOf('fw-c', 'c-keeper'))));
    const pidA = Number(fs.readFileSync(pidFile(sandboxA), 'utf8'));
    const pidC = Number(fs.readFileSync(pidFile(agent.tasks.sandboxOf('fw-c', 'c-keeper')), 'utf8'));
    const probes = { environ: `cat /proc/${pidA}/environ`, sandbox: `cat ${sandboxA}/secret`, list: `ls ${sandboxA}` };
    // The same probes from another framework's task, and from one of A's own (which may).
    for (const [name, shell] of Object.entries(probes)) {
      launch(`b-${name}`, shell, 'fw-b');
      launch(`a-${name}`, shell, 'fw-a');
    }
    const names = Object.keys(probes).flatMap((n) => [`b-${n}`, `a-${n}`]);
    await until(() => names.every(ended), 'every probe ended');
    expect(Object.fromEntries(names.map((n) => [n, bed.cp.last(n)?.state]))).toEqual(
      root
        ? {
            'b-environ': 'FAILED',
            'a-environ': 'FINISHED',
            'b-sandbox': 'FAILED',
            'a-sandbox': 'FINISHED',
            'b-list': 'FAILED',
            'a-list': 'FINISHED',
          }
        : // An agent that is not root runs every task as itself: it cannot keep tenants apart.
          Object.fromEntries(names.map((n) => [n, 'FINISHED'])),
    );
    const stdout = (fw: string, id: string) => fs.readFileSync(path.join(agent.tasks.sandboxOf(fw, id), 'stdout'), 'utf8');
    expect(stdout('fw-a', 'a-environ')).toContain('A_SECRET=env-secret');
    expect(stdout('fw-a', 'a-sandbox')).toBe('file-secret\n');
    if (!root) return;
    expect(stdout('fw-b', 'b-environ')).toBe('');

    // Each framework its own uid from the dynamic range, the same for all its tasks; sandboxes theirs alone.
    const uidA = uidOf(pidA);
    const uidC = uidOf(pidC);
    for (const uid of [uidA, uidC]) expect(uid - DYNAMIC_UID_BASE).toBeGreaterThanOrEqual(0);
    for (const uid of [uidA, uidC]) expect(uid - DYNAMIC_UID_BASE).toBeLessThan(DYNAMIC_UID_COUNT);
    expect(uidA).not.toBe(uidC);
    const st = fs.statSync(sandboxA);
    expect([st.uid, st.gid, st.mode & 0o777]).toEqual([uidA, uidA, 0o700]);
    const checkpoint = JSON.parse(fs.readFileSync(agent.tasks.checkpointOf('fw-a', 'a-keeper'), 'utf8')) as { uid: number; gid: number };
    expect([checkpoint.uid, checkpoint.gid]).toEqual([uidA, uidA]);

    // A restarted agent gives the framework the same uid.
    await agent.stop();
    agents.splice(agents.indexOf(agent), 1);
    const again = agentOn();
    await until(() => bed.cp.registrations.length === 2);
    launch('a-again', `grep -E '^(Uid|Gid|CapPrm|CapEff):' /proc/self/status`, 'fw-a');
    await until(() => ended('a-again'));
    // Real, effective, saved and filesystem ids all the task's, and no capability left.
    const status = fs.readFileSync(path.join(again.tasks.sandboxOf('fw-a', 'a-again'), 'stdout'), 'utf8');
    expect(status.replace(/[ \t]+/g, ' ')).toBe(
      `Uid: ${uidA} ${uidA} ${uidA} ${uidA}\nGid: ${uidA} ${uidA} ${uidA} ${uidA}\nCapPrm: 0000000000000000\nCapEff: 0000000000000000\n`,
    );
    again.kill({ frameworkId: 'fw-a', taskId: 'a-keeper', gracePeriodSeconds: 0 });
    again.kill({ frameworkId: 'fw-c', taskId: 'c-keeper', gracePeriodSeconds: 0 });
  });

  it('fails a task whose user does not exist, and one asking for root unless the agent allows it', async () => {
    agentOn();
    await until(() => bed.cp.registered);
    launch('ghost', 'true', 'fw', { user: 'no-such-user-x' });
    launch('as-root', 'id -u', 'fw', { user: 'root' });
    await until(() => ended('ghost') && ended('as-root'));
    expect(bed.cp.last('ghost')).toMatchObject({
      state: 'FAILED',
      reason: 'REASON_TASK_USER_INVALID',
      message: "no OS user 'no-such-user-x' on this machine",
    });
    expect(bed.cp.last('as-root')).toMatchObject({
      state: 'FAILED',
      reason: 'REASON_TASK_USER_INVALID',
      message: root
        ? "tasks may not run as 'root' (uid 0) on this agent (see --allow-root-tasks)"
        : "the agent does not run as root and so cannot run tasks as 'root'",
    });
    if (!root) return;
    const first = agents.pop();
    await first?.stop();
    const allowing = agentOn({ tasks: { allowRootTasks: true } });
    await until(() => bed.cp.registrations.length === 2);
    launch('allowed-root', 'id -u', 'fw', { user: 'root' });
    await until(() => ended('allowed-root'));
    expect(bed.cp.last('allowed-root')?.state).toBe('FINISHED');
    expect(fs.readFileSync(path.join(allowing.tasks.sandboxOf('fw', 'allowed-root'), 'stdout'), 'utf8')).toBe('0\n');
  });

  it('gives a task a private /tmp and /dev/shm in its sandbox, counted against its disk, and removes them when it ends', async () => {
    const agent = agentOn();
    await until(() => bed.cp.registered);
    const marker = `arbiter-private-tmp-${process.pid}-${Date.now()}`;
    const tmp = root ? '/tmp' : '"$TMPDIR"';
    launch(
      'filler',
      `head -c 12000000 /dev/zero > ${tmp}/${marker} && ${root ? `head -c 1000 /dev/zero > /dev/shm/${marker} && ` : ''}touch "$ARBITER_SANDBOX/done"; exec sleep 100`,
      'fw',
      {
        resources: [
          { name: 'cpus', value: 0.1 },
          { name: 'disk', value: 5 },
        ],
      },
    );
    const sandbox = agent.tasks.sandboxOf('fw', 'filler');
    await until(() => fs.existsSync(path.join(sandbox, 'done')) || ended('filler'), 'the task wrote its files');
    // Its updates may reach the control plane after the files are written.
    await until(() => bed.cp.states('filler').includes('RUNNING') || ended('filler'), 'the task RUNNING');
    expect(bed.cp.states('filler')).toEqual(['STARTING', 'RUNNING']);
    // Not in the machine's /tmp or /dev/shm: in the sandbox.
    expect(fs.existsSync(path.join('/tmp', marker))).toBe(false);
    expect(fs.existsSync(path.join('/dev/shm', marker))).toBe(false);
    expect(fs.statSync(path.join(sandbox, 'tmp', marker)).size).toBe(12_000_000);
    if (root) expect(fs.statSync(path.join(sandbox, '.shm', marker)).size).toBe(1000);
    await agent.tasks.limits.checkDisk();
    await until(() => ended('filler'));
    expect(bed.cp.last('filler')).toMatchObject({ state: 'FAILED', reason: 'REASON_CONTAINER_LIMITATION_DISK' });
    // What it left in its /tmp and /dev/shm is gone; its logs stay.
    expect([fs.existsSync(path.join(sandbox, 'tmp')), fs.existsSync(path.join(sandbox, '.shm'))]).toEqual([false, false]);
    expect(fs.existsSync(path.join(sandbox, 'stdout'))).toBe(true);
    expect(fs.existsSync(path.join('/tmp', marker))).toBe(false);
  });
});
