/**
 * The agent with real processes and a control plane's /agents namespace (FakeControlPlane): it
 * survives what it must never die of, and never loses the end of a task.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StatusUpdate } from '@arbiter/contracts';
import type { AgentOptions } from '../../../src/agent';
import { launchOf } from '../../support/fake-control-plane';
import { agentBed, stopAgents, testAgent } from '../../support/test-agents';
import { until as untilWithin } from '@arbiter/test-support';

const until = (check: () => boolean, what = 'the agent condition') => untilWithin(check, 15_000, what);
const ROOT = path.resolve(__dirname, '../../../../..');

describe('agent', () => {
  const bed = agentBed('arbiter-agent-');
  const { agents } = bed;
  const agentOn = (workDir: string, extra: Partial<AgentOptions> = {}) => {
    const agent = testAgent(bed.cp, workDir, extra);
    agents.push(agent);
    return agent;
  };
  /** The updates an agent's journal holds, oldest first. */
  const journaled = (workDir: string) =>
    fs
      .readdirSync(path.join(workDir, 'updates'))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(fs.readFileSync(path.join(workDir, 'updates', f), 'utf8')) as StatusUpdate);

  it("never reports a finished task lost when it is killed between reporting the task's end and checkpointing it", async () => {
    const work = path.join(bed.dir, 'work');
    const crashing = spawn(
      process.execPath,
      ['-r', path.join(ROOT, 'scripts', 'register.js'), path.join(__dirname, '../fixtures', 'crash-after-terminal-update.ts'), work],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => crashing.once('exit', (_code, s) => resolve(s)));
    expect(signal).toBe('SIGKILL');
    expect(journaled(work).map((u) => u.state)).toEqual(['STARTING', 'RUNNING', 'FINISHED']);

    const again = agentOn(work);
    again.start();
    await until(() => bed.cp.registered && bed.cp.states('quick').length > 0, 'the restarted agent registered and sent its updates');
    // It registers with the task (its end not yet acknowledged), so the control plane waits for it.
    expect(bed.cp.registrations[0].tasks).toEqual([expect.objectContaining({ frameworkId: 'fw', taskId: 'quick', state: 'FINISHED' })]);
    await until(() => bed.cp.states('quick').includes('FINISHED'));
    expect(bed.cp.states('quick')).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
    expect(bed.cp.last('quick')).toMatchObject({ reason: 'REASON_COMMAND_EXITED', message: 'exited with status 0' });
    // And it is checkpointed as ended now: a later restart reports nothing again.
    await until(() => again.pendingUpdates === 0);
    const third = agentOn(work);
    third.recover();
    expect(third.registration().tasks).toEqual([]);
  });

  it('registers a task it refused (DROPPED) until its update is acknowledged, so the control plane never reports it LOST', async () => {
    const work = path.join(bed.dir, 'work');
    // More room kept than any disk has: every launch is refused.
    const agent = agentOn(work, { workDirReserveBytes: Number.MAX_SAFE_INTEGER });
    agent.recover();
    const acks: unknown[] = [];
    agent.launch(launchOf('refused', 'exit 0'), (r) => acks.push(r));
    expect(acks).toEqual([{ ok: true }]);
    expect(journaled(work).map((u) => [u.taskId, u.state])).toEqual([['refused', 'DROPPED']]);
    const dropped = [{ frameworkId: 'fw', taskId: 'refused', state: 'DROPPED', resources: [] }];
    // Not connected yet: its update waits, and the registration reports the task ended.
    expect(agent.registration().tasks).toEqual(dropped);
    // After a restart too, from the journal.
    const again = agentOn(work, { workDirReserveBytes: Number.MAX_SAFE_INTEGER });
    again.recover();
    expect(again.registration().tasks).toEqual(dropped);
    again.start();
    await until(() => bed.cp.registered && bed.cp.states('refused').length > 0);
    expect(bed.cp.registrations[0].tasks).toEqual(dropped);
    // And it says why, for the control plane to show on the agent.
    expect(bed.cp.registrations[0].health).toMatchObject({ ok: false, problems: [{ code: 'DISK_RESERVE_IN_USE' }] });
    expect(bed.cp.states('refused')).toEqual(['DROPPED']);
    // Acknowledged: reported no more.
    await until(() => again.pendingUpdates === 0);
    expect(again.registration().tasks).toEqual([]);
  });

  it('a 255-character task id runs like any other, and neither its sandbox nor its cgroup names it', async () => {
    const agent = agentOn(path.join(bed.dir, 'work'));
    agent.start();
    await until(() => bed.cp.registered);
    const id = `t${'x'.repeat(254)}`;
    const fw = `f${'y'.repeat(254)}`;
    bed.cp.launch(launchOf(id, 'echo "$PWD" > where; exec sleep 100', fw));
    await until(() => bed.cp.states(id).includes('RUNNING'));
    const sandbox = agent.tasks.sandboxOf(fw, id);
    const where = path.join(sandbox, 'where');
    await until(() => fs.existsSync(where) && fs.readFileSync(where, 'utf8').endsWith('\n'));
    expect(fs.readFileSync(path.join(sandbox, 'where'), 'utf8').trim()).toBe(sandbox);
    expect(sandbox).not.toMatch(/xxxx|yyyy/);
    const cgroup = Object.values(agent.tasks.cgroupOf(fw, id)?.dirs ?? {});
    expect(cgroup.length).toBeGreaterThan(0);
    for (const d of cgroup) expect(d).not.toMatch(/xxxx|yyyy/);
    expect(path.basename(agent.tasks.checkpointOf(fw, id)).length).toBeLessThan(64);
    agent.kill({ frameworkId: fw, taskId: id, gracePeriodSeconds: 0 });
    await until(() => bed.cp.states(id).includes('KILLED'));
    expect(bed.cp.states(id)).toEqual(['STARTING', 'RUNNING', 'KILLED']);
  });

  describe('with its work directory on a filesystem of 1 MiB (tmpfs)', () => {
    let work: string;
    let filler: string;
    beforeEach(() => {
      work = path.join(bed.dir, 'work');
      fs.mkdirSync(work);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', work]);
      filler = path.join(work, 'filler');
    });
    afterEach(async () => {
      await stopAgents(agents);
      execFileSync('umount', [work]);
    });
    /** Fills the filesystem to the last byte. */
    const fill = () => {
      const fd = fs.openSync(filler, 'a');
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(4096));
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
    };

    it('refuses a launch when its journal cannot take the update (ENOSPC), reports it, and runs tasks again once there is room', async () => {
      const agent = agentOn(work, { workDirReserveBytes: 0, tasks: { sandboxDir: path.join(bed.dir, 'sandboxes') } });
      agent.start();
      await until(() => bed.cp.registered);
      fill();
      bed.cp.launch(launchOf('squeezed', 'exit 0'));
      await until(() => bed.cp.states('squeezed').includes('FAILED'), 'the launch failed and said so');
      expect(bed.cp.last('squeezed')?.reason).toBe('REASON_COMMAND_EXECUTOR_FAILED');
      expect(bed.cp.last('squeezed')?.message).toMatch(/^could not prepare the task: ENOSPC/);
      const health = agent.health();
      expect(health.problems.map((p) => p.code)).toEqual(['JOURNAL_UNWRITABLE']);
      expect(health.ok).toBe(false);
      expect(health.problems[0].message).toMatch(/^its status update journal cannot be written: ENOSPC/);
      fs.rmSync(filler);
      bed.cp.launch(launchOf('roomy', 'exit 0'));
      await until(() => bed.cp.states('roomy').includes('FINISHED'));
      expect(agent.health()).toMatchObject({ ok: true, problems: [], sandboxDisk: { gcHeadroom: 0.1 } });
    });

    it('refuses launches (DROPPED) while its work directory has less free space than it keeps for its records', async () => {
      const agent = agentOn(work, { workDirReserveBytes: 512 * 1024, tasks: { sandboxDir: path.join(bed.dir, 'sandboxes') } });
      agent.start();
      await until(() => bed.cp.registered);
      fill();
      bed.cp.launch(launchOf('refused', 'exit 0'));
      await until(() => bed.cp.states('refused').length > 0);
      expect(bed.cp.states('refused')).toEqual(['DROPPED']);
      expect(bed.cp.last('refused')?.reason).toBe('REASON_CONTAINER_LAUNCH_FAILED');
      expect(bed.cp.last('refused')?.message).toMatch(
        /^the agent cannot take tasks now: its work directory .* has 0\.0 MiB free, under the 0\.5 MiB it keeps for its journal and checkpoints/,
      );
      expect(fs.existsSync(agent.tasks.sandboxOf('fw', 'refused'))).toBe(false);
      fs.rmSync(filler);
      bed.cp.launch(launchOf('later', 'exit 0'));
      await until(() => bed.cp.states('later').includes('FINISHED'));
    });
  });
});
