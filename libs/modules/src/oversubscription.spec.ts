import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModuleCounters } from './counters';
import { HookRunner } from './hooks';
import { loadModules } from './loader';
import { fixedEstimator, loadController, type TaskUsage, usageEstimator } from './oversubscription';

const context = { host: 'agent' as const, baseDir: os.tmpdir(), log: () => undefined };
const task = (taskId: string, revocable: boolean, allocated: Record<string, number>, used?: Record<string, number>): TaskUsage => ({
  frameworkId: 'f',
  taskId,
  revocable,
  allocated,
  allocatedRevocable: revocable ? allocated : {},
  ...(used ? { used } : {}),
});

describe('built-in resource estimators', () => {
  it('fixed: the configured amount less what revocable tasks hold', async () => {
    const m = await fixedEstimator.create({ resources: { cpus: 4, mem: 1024 } }, context);
    const input = { agentId: 'a', total: { cpus: 8 }, tasks: [task('r', true, { cpus: 1, mem: 2000 }), task('n', false, { cpus: 2 })] };
    expect(await m.resourceEstimator?.(input)).toEqual({ cpus: 3, mem: 0 });
  });

  it('usage: idle allocation of regular tasks less the margin, unmeasured tasks counting as busy', async () => {
    const m = await usageEstimator.create({ margin: 0.5 }, context);
    const tasks = [
      task('idle', false, { cpus: 2, mem: 1000 }, { cpus: 0, mem: 200 }),
      task('new', false, { cpus: 4, mem: 4000 }),
      task('busy', false, { cpus: 1, mem: 100 }, { cpus: 3, mem: 500 }),
      task('rev', true, { cpus: 0.5 }),
    ];
    expect(await m.resourceEstimator?.({ agentId: 'a', total: { cpus: 8, mem: 8000 }, tasks })).toEqual({ cpus: 0.5, mem: 400 });
  });

  it('refuses bad parameters at start', () => {
    expect(() => fixedEstimator.create({ resources: { cpus: -1 } }, context)).toThrow('resources.cpus must be a number >= 0');
    expect(() => usageEstimator.create({ margin: 1 }, context)).toThrow('margin must be');
    expect(() => loadController.create({}, context)).toThrow('give threshold1');
  });
});

describe('built-in load QoS controller', () => {
  it('kills every revocable task while a load average is over its threshold, read from the file when given', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-load-'));
    fs.writeFileSync(path.join(dir, 'load'), '1.0 7.5 2.0 1/1 1');
    const fromFile = await loadController.create({ threshold5: 6, loadFile: 'load' }, { ...context, baseDir: dir });
    const tasks = [task('r', true, { cpus: 1 }), task('n', false, { cpus: 1 })];
    const corrections = await fromFile.qosController?.({ agentId: 'a', tasks, load: [0, 0, 0] });
    expect(corrections?.map((c) => c.kill)).toEqual([{ frameworkId: 'f', taskId: 'r' }]);
    expect(corrections?.[0].message).toContain('5-minute load average 7.5 is over 6');
    fs.writeFileSync(path.join(dir, 'load'), '1.0 5.5 2.0');
    expect(await fromFile.qosController?.({ agentId: 'a', tasks, load: [0, 0, 0] })).toEqual([]);
    const machine = await loadController.create({ threshold1: 2 }, context);
    expect(await machine.qosController?.({ agentId: 'a', tasks, load: [3, 0, 0] })).toHaveLength(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('the runner', () => {
  it('isolates a failing estimator and QoS controller: no estimate, no correction, counted', async () => {
    const counters = new ModuleCounters();
    const runner = new HookRunner(
      [
        { name: 'bad-estimator', instance: { resourceEstimator: () => ({ cpus: -1 }) } },
        { name: 'bad-qos', instance: { qosController: () => Promise.reject(new Error('boom')) } },
      ],
      100,
      counters,
    );
    expect(await runner.estimate({ agentId: 'a', total: {}, tasks: [] })).toBeUndefined();
    expect(await runner.corrections({ agentId: 'a', tasks: [], load: [0, 0, 0] })).toEqual([]);
    expect(counters.all().map((c) => [c.module, c.failures])).toEqual([
      ['bad-estimator', 1],
      ['bad-qos', 1],
    ]);
  });

  it('loads the built-ins by name, one module per point', async () => {
    const file = (modules: Array<{ use: string; parameters: Record<string, unknown> }>) => ({
      file: 'm.json',
      baseDir: os.tmpdir(),
      hookTimeoutMs: 1000,
      modules,
    });
    const loaded = await loadModules(
      file([
        { use: 'arbiter:fixed', parameters: { resources: { cpus: 1 } } },
        { use: 'arbiter:load', parameters: { threshold1: 1 } },
      ]),
      { host: 'agent' },
    );
    expect(loaded.hooks.has('resourceEstimator') && loaded.hooks.has('qosController')).toBe(true);
    await expect(
      loadModules(
        file([
          { use: 'arbiter:fixed', parameters: { resources: { cpus: 1 } } },
          { use: 'arbiter:usage', parameters: {} },
        ]),
        { host: 'agent' },
      ),
    ).rejects.toThrow("implements agent:resource-estimator, which module 'fixed' implements already");
    await expect(loadModules(file([{ use: 'arbiter:load', parameters: {} }]), { host: 'control-plane' })).rejects.toThrow(
      'which the control plane does not run',
    );
  });
});
