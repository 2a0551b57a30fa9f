/**
 * The hook runner: order, decoration, refusal, and the failure rules: a throwing hook, a
 * hanging one (past the time limit) and a wrong answer are counted and logged and treated as
 * no answer; the guarded policies keep to their rules.
 */
import { DRFSorter, SorterPool } from '@arbiter/allocator';
import { ModuleCounters } from './counters';
import { HookRunner } from './hooks';
import { guardPlacement, guardSorter } from './policies';
import type { ModuleInstance, TaskLaunchInput } from './points';

const input: TaskLaunchInput = {
  frameworkId: 'fw',
  frameworkName: 'fw',
  role: 'r',
  agentId: 'a',
  task: { taskId: 't', name: 't', labels: [{ key: 'app', value: 'web' }], environment: { A: '1' }, resources: [] },
};

function runner(modules: Array<[string, ModuleInstance]>, timeoutMs = 50) {
  const logged: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const counters = new ModuleCounters((message, fields) => logged.push({ message, fields }));
  const hooks = new HookRunner(
    modules.map(([name, instance]) => ({ name, instance })),
    timeoutMs,
    counters,
  );
  return { hooks, counters, logged };
}

describe('HookRunner', () => {
  it('runs task-launch hooks in order, each seeing what the earlier added', async () => {
    const seen: string[][] = [];
    const { hooks } = runner([
      [
        'one',
        {
          taskLaunch: (i) => (
            seen.push(i.task.labels.map((l) => l.key)),
            { labels: [{ key: 'team', value: 'a' }], environment: { B: '2' } }
          ),
        },
      ],
      ['two', { taskLaunch: (i) => (seen.push(i.task.labels.map((l) => l.key)), { labels: [{ key: 'team', value: 'b' }] }) }],
    ]);
    const out = await hooks.taskLaunch(input);
    expect(seen).toEqual([['app'], ['app', 'team']]);
    expect(out).toEqual({
      labels: [
        { key: 'app', value: 'web' },
        { key: 'team', value: 'b' },
      ],
      environment: { A: '1', B: '2' },
      changed: true,
    });
  });

  it('stops at a refusal, naming the module and its reason', async () => {
    const after = jest.fn();
    const { hooks } = runner([
      ['policy', { taskLaunch: () => ({ refuse: 'tasks of team x need a cost centre label' }) }],
      ['later', { taskLaunch: after }],
    ]);
    expect((await hooks.taskLaunch(input)).refused).toEqual({ module: 'policy', reason: 'tasks of team x need a cost centre label' });
    expect(after).not.toHaveBeenCalled();
  });

  it('isolates a throwing hook, a hanging hook and a wrong answer: counted, logged, the next hook runs', async () => {
    const { hooks, counters, logged } = runner([
      [
        'throws',
        {
          taskLaunch: () => {
            throw new Error('boom');
          },
        },
      ],
      ['hangs', { taskLaunch: () => new Promise<never>(() => undefined) }],
      ['wrong', { taskLaunch: () => ({ labels: 'x' }) as never }],
      ['fine', { taskLaunch: () => ({ environment: { OK: 'yes' } }) }],
    ]);
    const started = Date.now();
    const out = await hooks.taskLaunch(input);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(out.refused).toBeUndefined();
    expect(out.environment).toEqual({ A: '1', OK: 'yes' });
    expect(counters.all().map((c) => [c.module, c.calls, c.failures, c.timeouts])).toEqual([
      ['throws', 1, 1, 0],
      ['hangs', 1, 0, 1],
      ['wrong', 1, 1, 0],
      ['fine', 1, 0, 0],
    ]);
    expect(logged.map((l) => l.message)).toEqual([
      'module throws failed at control-plane:task-launch: boom; the task launches without its changes',
      'module hangs failed at control-plane:task-launch: no answer within 50 ms; the task launches without its changes',
      'module wrong failed at control-plane:task-launch: answered labels that are not [{ key, value? }]; the task launches without its changes',
    ]);
  });

  it('adds the start hooks environment and runs every removal hook despite failures', async () => {
    const removed: string[] = [];
    const { hooks, counters } = runner([
      ['a', { containerStart: () => ({ environment: { X: '1', Y: '1' } }), executorRemoved: () => Promise.reject(new Error('gone')) }],
      [
        'b',
        { containerStart: (i) => ({ environment: { Y: `${i.environment.Y}2` } }), executorRemoved: (i) => void removed.push(i.executorId) },
      ],
      ['c', { executorStart: () => new Promise<never>(() => undefined) }],
    ]);
    const base = { agentId: 'a', frameworkId: 'f', sandbox: '/s', environment: {} };
    expect(await hooks.start('agent:container-start', base)).toEqual({ X: '1', Y: '12' });
    expect(await hooks.start('agent:executor-start', base)).toEqual({});
    await hooks.executorRemoved({ agentId: 'a', frameworkId: 'f', executorId: 'e', sandbox: '/s' });
    expect(removed).toEqual(['e']);
    expect(
      counters
        .all()
        .filter((c) => c.failures + c.timeouts > 0)
        .map((c) => [c.module, c.point]),
    ).toEqual([
      ['c', 'agent:executor-start'],
      ['a', 'agent:executor-removed'],
    ]);
  });
});

describe('guarded policies', () => {
  it('a sorter that throws answers in arrival order from then on, counted once', () => {
    const counters = new ModuleCounters();
    let broken = false;
    const factory = guardSorter(
      'mine',
      (excludedNames, pool) => {
        const drf = new DRFSorter({ excludedNames, pool });
        return Object.assign(Object.create(drf) as DRFSorter, {
          sort: () => {
            if (broken) throw new Error('sorting failed');
            return drf.sort();
          },
        });
      },
      counters,
    );
    const sorter = factory([], new SorterPool());
    for (const c of ['b', 'a', 'c']) {
      sorter.add(c);
      sorter.activate(c);
    }
    sorter.deactivate('c');
    expect(sorter.sort()).toEqual(['a', 'b']);
    broken = true;
    expect(sorter.sort()).toEqual(['b', 'a']);
    expect(sorter.sort()).toEqual(['b', 'a']);
    expect(sorter.share('a')).toBe(0);
    expect(counters.all()).toEqual([{ module: 'mine', point: 'allocator:sorter', calls: 0, failures: 1, timeouts: 0 }]);
  });

  it('passes the role of a framework sorter through to the module', () => {
    const roles: Array<string | undefined> = [];
    const factory = guardSorter(
      'mine',
      (excludedNames, pool, role) => {
        roles.push(role);
        return new DRFSorter({ excludedNames, pool });
      },
      new ModuleCounters(),
    );
    factory([], new SorterPool());
    factory([], new SorterPool(), 'eng/ci');
    expect(roles).toEqual([undefined, 'eng/ci']);
  });

  it('a placement that throws gives the candidates as they came', () => {
    const counters = new ModuleCounters();
    const make = guardPlacement(
      'p',
      () => ({
        order: () => {
          throw new Error('no');
        },
      }),
      counters,
    );
    const agents = [{ id: 'x' }, { id: 'y' }] as never[];
    expect(make({} as never, Math.random).order(agents)).toBe(agents);
    expect(counters.all()[0].failures).toBe(1);
  });
});
