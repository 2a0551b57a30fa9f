/**
 * Garbage collection with real tasks: an ended task leaves the agent's memory once its end is
 * acknowledged, and its sandbox and record go after the GC delay (sooner as the disk fills);
 * a restarted agent does not take acknowledged ends back into memory. An executor's sandbox goes
 * the same way once the executor has ended, never while it runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import { executorBed } from '../../support/executor-bed';
import { launchOf } from '../../support/fake-control-plane';
import { agentBed } from '../../support/test-agents';

const until = (check: () => boolean, what: string) => untilWithin(check, 15_000, what);

describe('garbage collection', () => {
  const bed = agentBed('arbiter-gc-', { gc: { intervalMs: 0, delayMs: 60_000, diskHeadroom: 0 } });
  const { agents, agentOn } = bed;

  it('drops an acknowledged end from memory, then removes its sandbox and record after the delay, and only then', async () => {
    const work = path.join(bed.dir, 'work');
    const agent = agentOn(work);
    await until(() => bed.cp.registered, 'the agent registered');
    for (const id of ['one', 'two']) bed.cp.launch(launchOf(id, `echo ${id}`));
    await until(() => bed.cp.states('one').includes('FINISHED') && bed.cp.states('two').includes('FINISHED'), 'both tasks finished');
    // The fake control plane acknowledges every update: once the ends are, the tasks leave memory.
    await until(() => agent.tasks.live().length === 0 && agent.tasks.collectable().length === 2, 'both ends handed to the GC');
    const sandbox = agent.tasks.sandboxOf('fw', 'one');
    expect(fs.readFileSync(path.join(sandbox, 'stdout'), 'utf8')).toBe('one\n');
    // Within the delay nothing goes.
    expect(agent.gc.collect()).toEqual([]);
    expect(fs.existsSync(sandbox)).toBe(true);

    // Past it (the records' times moved back, as a clock moved on), both sandboxes and records go.
    const old = new Date(Date.now() - 120_000);
    for (const c of agent.tasks.collectable()) fs.utimesSync(c.paths[1], old, old);
    expect(
      agent.gc
        .collect()
        .map((c) => c.what)
        .sort(),
    ).toEqual(['task one', 'task two']);
    expect(fs.existsSync(sandbox)).toBe(false);
    expect(fs.existsSync(agent.tasks.checkpointOf('fw', 'one'))).toBe(false);
    expect(agent.tasks.collectable()).toEqual([]);
    expect(agent.gc.collected.items).toBe(2);
  });

  it('takes no acknowledged end back into memory after a restart, and leaves it to the GC; a running task is never collected', async () => {
    const work = path.join(bed.dir, 'work');
    const first = agentOn(work);
    await until(() => bed.cp.registered, 'the agent registered');
    bed.cp.launch(launchOf('done', 'true'));
    bed.cp.launch(launchOf('runs', 'sleep 30'));
    await until(() => bed.cp.states('done').includes('FINISHED') && bed.cp.states('runs').includes('RUNNING'), 'one done, one running');
    await until(() => first.tasks.collectable().length === 1, 'the end handed to the GC');
    // The agent stops, leaving its running task to the next one.
    agents.splice(agents.indexOf(first), 1);
    await first.stop();

    // Back: the running task is watched again, the acknowledged end stays out of memory.
    const again = agentOn(work, { gc: { intervalMs: 0, delayMs: 0 } });
    await until(() => bed.cp.registered && again.tasks.has('fw', 'runs'), 'the running task recovered');
    expect(again.tasks.live().map((t) => t.taskId)).toEqual(['runs']);
    // With no delay, everything handed over goes, and the running task's sandbox stays.
    expect(again.gc.collect().map((c) => c.what)).toEqual(['task done']);
    expect(fs.existsSync(again.tasks.sandboxOf('fw', 'runs'))).toBe(true);
    expect(fs.existsSync(again.tasks.sandboxOf('fw', 'done'))).toBe(false);
  });
});

describe('garbage collection of executors', () => {
  const bed = executorBed('arbiter-gc-executors-', { gc: { intervalMs: 0, delayMs: 60_000, diskHeadroom: 0 } });
  const executor = (executorId: string, shell: string): ExecutorSpec => ({
    executorId,
    type: 'CUSTOM',
    command: { shell },
    resources: [{ name: 'mem', value: 32 }],
  });
  const taskOn = (spec: ExecutorSpec, taskId: string): LaunchTask => ({
    frameworkId: 'fw',
    task: { taskId, name: taskId, executor: spec, resources: [{ name: 'cpus', value: 0.1 }] },
  });

  it("hands an ended executor's sandbox to the GC after the delay, never a running one's, also after a restart", async () => {
    const agent = await bed.agentOn();
    // One ends at once (its task fails with it), one keeps running, waiting to subscribe.
    bed.cp.launch(taskOn(executor('brief', 'echo brief'), 'on-brief'));
    bed.cp.launch(taskOn(executor('lasting', 'sleep 30'), 'on-lasting'));
    await until(
      () => bed.cp.states('on-brief').includes('FAILED') && !!agent.executors.find('fw', 'lasting')?.container.pid,
      'one ended, one running',
    );
    const lasting = agent.executors.find('fw', 'lasting')?.container.sandbox ?? '';
    const [ended] = agent.executors.collectable();
    expect(agent.executors.collectable()).toHaveLength(1);
    expect(fs.readFileSync(path.join(ended.paths[0], 'stdout'), 'utf8')).toBe('brief\n');
    // Kept since it ended: within the delay nothing goes.
    expect(Date.now() - ended.since).toBeLessThan(30_000);
    expect(agent.gc.collect()).toEqual([]);

    // A restarted agent finds it on disk still ended; past the delay it goes, the running one's stays.
    await agent.stop();
    bed.forget(agent);
    const again = await bed.agentOn({ gc: { intervalMs: 0, delayMs: 0 } });
    await until(() => !!again.executors.find('fw', 'lasting'), 'the running executor recovered');
    expect(again.gc.collect().map((c) => c.paths)).toEqual([ended.paths]);
    expect(fs.existsSync(ended.paths[0])).toBe(false);
    expect(fs.existsSync(lasting)).toBe(true);
    expect(again.executors.collectable()).toEqual([]);
    await again.executors.killAll();
  });
});
