/**
 * A QoS controller module with real processes: a module package (written in the test, named in
 * a modules file) that first throws, then asks to kill every task. Its throw is counted and kills
 * nothing; then the revocable task ends TASK_KILLED with REASON_CONTAINER_PREEMPTED and the
 * correction's message, while the correction naming the regular task is refused and that task
 * runs on. Rounds are driven by tick() (no timer).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadModules, readModulesFile } from '@arbiter/modules';
import { until } from '@arbiter/test-support';
import { groupPids, sample } from '../../../src/oversubscription/usage';
import { executorBed } from '../../support/executor-bed';

const GREEDY = `let calls = 0;
module.exports = {
  name: 'greedy-qos',
  apiVersion: 1,
  points: ['agent:qos-controller'],
  create: () => ({
    qosController: ({ tasks }) => {
      calls++;
      if (calls === 1) throw new Error('no signal yet');
      return tasks.map((t) => ({ kill: { frameworkId: t.frameworkId, taskId: t.taskId }, message: 'machine busy' }));
    },
  }),
};`;

describe('a QoS controller module (real processes)', () => {
  const bed = executorBed('arbiter-agent-qos-module-');

  it('preempts the revocable task only, and survives a throwing controller', async () => {
    fs.mkdirSync(path.join(bed.dir, 'modules'), { recursive: true });
    fs.writeFileSync(path.join(bed.dir, 'modules', 'greedy.js'), GREEDY);
    const file = path.join(bed.dir, 'modules', 'modules.json');
    fs.writeFileSync(file, JSON.stringify({ modules: [{ use: './greedy.js' }] }));
    const modules = await loadModules(readModulesFile(file), { host: 'agent' });
    const agent = await bed.agentOn({ modules, oversubscription: { intervalMs: 0 } });
    const over = agent.oversubscription;
    if (!over) throw new Error('the QoS module should have started oversubscription');

    const launch = (taskId: string, revocable: boolean) =>
      bed.cp.launch({
        frameworkId: 'fw',
        task: {
          taskId,
          name: taskId,
          command: { shell: 'sleep 600' },
          resources: [{ name: 'cpus', value: 0.1, ...(revocable ? { revocable } : {}) }],
        },
      });
    launch('regular', false);
    launch('best-effort', true);
    await until(() => bed.cp.states('regular').includes('RUNNING') && bed.cp.states('best-effort').includes('RUNNING'), 20_000, 'both run');

    await over.tick();
    expect(over.stats.evictions).toBe(0);
    expect(modules.counters.all().map((c) => [c.module, c.point, c.calls, c.failures])).toEqual([
      ['greedy-qos', 'agent:qos-controller', 1, 1],
    ]);

    await over.tick();
    await until(() => bed.cp.states('best-effort').includes('KILLED'), 20_000, 'the revocable task killed');
    expect(bed.cp.last('best-effort')).toMatchObject({ state: 'KILLED', reason: 'REASON_CONTAINER_PREEMPTED', message: 'machine busy' });
    expect(over.stats).toMatchObject({ evictions: 1, refused: 1 });
    expect(agent.tasks.has('fw', 'regular')).toBe(true);
    expect(bed.cp.states('regular')).not.toContain('KILLED');

    await bed.cp.call('kill', { frameworkId: 'fw', taskId: 'regular', gracePeriodSeconds: 0 });
    await until(() => bed.cp.states('regular').includes('KILLED'), 20_000, 'the regular task killed on request');
    expect(bed.cp.last('regular')?.reason).toBe('REASON_TASK_KILLED');
  });
});

describe('the usage estimator under a synthetic load (real processes)', () => {
  const bed = executorBed('arbiter-agent-usage-estimator-');

  it("reports an idle task's allocation as revocable, and less of a busy one's", async () => {
    const file = path.join(bed.dir, 'modules.json');
    fs.writeFileSync(file, JSON.stringify({ modules: [{ use: 'arbiter:usage', parameters: { margin: 0 } }] }));
    const modules = await loadModules(readModulesFile(file), { host: 'agent' });
    // The estimator's wall clock is the test's: a round measures the CPU time the busy task
    // really spent over one second of it, however loaded the machine.
    let clock = Date.now();
    const agent = await bed.agentOn({ modules, oversubscription: { intervalMs: 0, now: () => clock } });
    const over = agent.oversubscription;
    if (!over) throw new Error('the estimator should have started oversubscription');
    const launch = (taskId: string, shell: string) =>
      bed.cp.launch({
        frameworkId: 'fw',
        task: {
          taskId,
          name: taskId,
          command: { shell },
          resources: [
            { name: 'cpus', value: 1 },
            { name: 'mem', value: 256 },
          ],
        },
      });
    launch('idle', 'sleep 600');
    launch('busy', 'while :; do :; done');
    await until(() => bed.cp.states('idle').includes('RUNNING') && bed.cp.states('busy').includes('RUNNING'), 20_000, 'both run');

    // The busy task's CPU time as the test reads it, around the estimator's own two samples.
    const pid = agent.tasks.processOf('fw', 'busy')?.pid;
    if (!pid) throw new Error('the busy task should have a process');
    const cpuOf = () => sample(groupPids(pid), 0).cpuSeconds;

    // Not measured twice yet: both count as using all they hold, nothing is revocable (no report).
    const before = cpuOf();
    await over.tick();
    expect(over.stats).toMatchObject({ estimates: 1, reports: 0 });
    // The busy task spends half a second of CPU time while the estimator's clock moves one.
    const from = cpuOf();
    await until(() => cpuOf() - from >= 0.5, 20_000, 'the busy task spends half a second of CPU');
    const to = cpuOf();
    clock += 1_000;
    await over.tick();
    const after = cpuOf();
    expect(over.stats.reports).toBe(1);
    // The idle task's core (it sleeps), and what the busy one left of its own: its core less the
    // CPU time it spent between the estimator's samples, which lies between to - from and
    // after - before.
    const cpus = over.stats.revocable.cpus;
    expect(cpus).toBeLessThanOrEqual(1 + 1 - (to - from) + 0.001);
    expect(cpus).toBeGreaterThanOrEqual(0.9 + Math.max(0, 1 - (after - before)) - 0.001);
    expect(over.stats.revocable.mem).toBeGreaterThan(400);
    const sent = bed.cp.totals.at(-1)?.resources ?? [];
    expect(sent.filter((r) => r.revocable)).toEqual([
      { name: 'cpus', value: cpus, revocable: true },
      { name: 'mem', value: over.stats.revocable.mem, revocable: true },
    ]);
    expect(sent.filter((r) => !r.revocable)).toEqual(agent.registration().resources.filter((r) => !r.revocable));
    for (const taskId of ['idle', 'busy']) await bed.cp.call('kill', { frameworkId: 'fw', taskId, gracePeriodSeconds: 0 });
    await until(() => bed.cp.states('busy').includes('KILLED') && bed.cp.states('idle').includes('KILLED'), 20_000, 'both killed');
  });
});
