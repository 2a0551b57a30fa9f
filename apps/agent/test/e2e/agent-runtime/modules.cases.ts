/**
 * The agent's hooks from modules, with real processes: a module package written to a temporary
 * directory and named in a modules file (as `arbiter agent --modules FILE` reads it) adds to a
 * task's and an executor's environment before they start and cleans up after the executor is
 * removed; a throwing hook and a hanging one (past the file's hookTimeoutMs) are counted and the
 * task runs all the same.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec } from '@arbiter/contracts';
import { loadModules, readModulesFile } from '@arbiter/modules';
import { until } from '@arbiter/test-support';
import { executorBed } from '../../support/executor-bed';

/** Environment for tasks and executors; the removal hook records what the executor left in its sandbox. */
const HOOKS = `
const fs = require('node:fs');
const path = require('node:path');
exports.default = {
  name: 'env-and-cleanup',
  apiVersion: 1,
  points: ['agent:container-start', 'agent:executor-start', 'agent:executor-removed'],
  create(parameters) {
    return {
      containerStart: (input) => ({ environment: { HOOK_TASK: input.taskId + '@' + parameters.site } }),
      executorStart: (input) => ({ environment: { HOOK_EXECUTOR: input.executorId } }),
      executorRemoved(input) {
        const left = fs.readFileSync(path.join(input.sandbox, 'seen.txt'), 'utf8').trim();
        fs.writeFileSync(path.join(parameters.dir, 'removed-' + input.executorId), left);
      },
    };
  },
};`;
/** Hooks that fail: one throws, one never answers. */
const BROKEN = `
module.exports = {
  name: 'broken',
  apiVersion: 1,
  points: ['agent:container-start'],
  create: (parameters) => ({
    containerStart: () => (parameters.hang ? new Promise(() => {}) : Promise.reject(new Error('no site registry'))),
  }),
};`;

describe('modules on the agent (real processes)', () => {
  const bed = executorBed('arbiter-agent-modules-');

  async function agentWith(modules: Array<{ use: string; parameters?: Record<string, unknown> }>) {
    const pkg = path.join(bed.dir, 'modules', 'node_modules', 'agent-hooks');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'agent-hooks', version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(pkg, 'index.js'), HOOKS);
    fs.writeFileSync(path.join(bed.dir, 'modules', 'broken.js'), BROKEN);
    const file = path.join(bed.dir, 'modules', 'modules.json');
    fs.writeFileSync(file, JSON.stringify({ hookTimeoutMs: 300, modules }));
    const loaded = await loadModules(readModulesFile(file), { host: 'agent' });
    return { agent: await bed.agentOn({ modules: loaded }), loaded };
  }
  const seen = (agent: { tasks: { sandboxOf(f: string, t: string): string } }, taskId: string) => {
    const file = path.join(agent.tasks.sandboxOf('fw', taskId), 'seen.txt');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
  };

  it('adds to the environment of tasks and executors, and cleans up after a removed executor', async () => {
    const { agent } = await agentWith([{ use: 'agent-hooks', parameters: { site: 'lab', dir: bed.dir } }]);
    bed.cp.launch({
      frameworkId: 'fw',
      task: { taskId: 't1', name: 't1', command: { shell: 'echo "$HOOK_TASK" > seen.txt' }, resources: [{ name: 'cpus', value: 0.1 }] },
    });
    await until(() => bed.cp.states('t1').includes('FINISHED'), 20_000, 't1 finishes');
    expect(seen(agent, 't1')).toBe('t1@lab');

    // An executor that records its environment and exits: its task fails, the executor is removed.
    const executor: ExecutorSpec = {
      executorId: 'ex1',
      type: 'CUSTOM',
      command: { shell: 'echo "$HOOK_EXECUTOR" > seen.txt' },
      resources: [{ name: 'cpus', value: 0.1 }],
    };
    bed.cp.launch({ frameworkId: 'fw', task: { taskId: 't2', name: 't2', executor, resources: [{ name: 'cpus', value: 0.1 }] } });
    const removed = path.join(bed.dir, 'removed-ex1');
    // The hook's file exists a moment before it holds what it writes.
    await until(() => fs.existsSync(removed) && fs.readFileSync(removed, 'utf8') !== '', 20_000, 'the executor-removed hook runs');
    expect(fs.readFileSync(removed, 'utf8')).toBe('ex1');
  });

  it('runs the task when a hook throws or hangs, counting both, and keeps the working hooks in order', async () => {
    const { agent, loaded } = await agentWith([
      { use: './broken.js' },
      { use: './broken.js', parameters: { hang: true } },
      { use: 'agent-hooks', parameters: { site: 'lab', dir: bed.dir } },
    ]);
    const started = Date.now();
    bed.cp.launch({
      frameworkId: 'fw',
      task: { taskId: 't3', name: 't3', command: { shell: 'echo "$HOOK_TASK" > seen.txt' }, resources: [{ name: 'cpus', value: 0.1 }] },
    });
    await until(() => bed.cp.states('t3').includes('FINISHED'), 20_000, 't3 finishes');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(seen(agent, 't3')).toBe('t3@lab');
    expect(loaded.counters.all().map((c) => [c.module, c.point, c.calls, c.failures, c.timeouts])).toEqual([
      ['broken', 'agent:container-start', 2, 1, 1],
      ['env-and-cleanup', 'agent:container-start', 1, 0, 0],
    ]);
  });
});
