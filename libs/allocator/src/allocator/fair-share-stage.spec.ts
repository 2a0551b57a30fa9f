import { fairShareStage } from './fair-share-stage';
import { onBothPaths, runStage, type StageCase, stateOf } from './stage.fixture';

const AGENT = { a1: 'cpus:4;mem:4096' };
const TWO = { f1: { roles: ['r'] }, f2: { roles: ['r'] } };

describe('fair-share stage', () => {
  const cases: StageCase[] = [
    // equal shares: by name
    ['the whole agent to the first framework by DRF', { agents: AGENT, frameworks: TWO }, [['f1', 'r', 'a1', 'cpus:4;mem:4096']]],
    [
      'one agent each: the second agent to the framework with the lower share',
      { agents: { a1: 'cpus:4;mem:4096', a2: 'cpus:4;mem:4096' }, frameworks: TWO },
      [
        ['f1', 'r', 'a1', 'cpus:4;mem:4096'],
        ['f2', 'r', 'a2', 'cpus:4;mem:4096'],
      ],
    ],
    [
      // limit cpus:1: f1 gets cpus:1 and the mem; f2 nothing (at the limit, no mem left)
      'a quota limit cuts the offer',
      { agents: AGENT, frameworks: TWO, quotas: { r: { guarantees: {}, limits: { cpus: 1 } } } },
      [['f1', 'r', 'a1', 'cpus:1;mem:4096']],
    ],
    [
      // role `idle` (no frameworks) is guaranteed cpus:2: they stay free
      "headroom for another role's unmet guarantee",
      { agents: AGENT, frameworks: { f: { roles: ['r'] } }, quotas: { idle: { guarantees: { cpus: 2 } } } },
      [['f', 'r', 'a1', 'cpus:2;mem:4096']],
    ],
    [
      'an agent with gpus to the framework that can use them',
      { agents: { a1: 'cpus:4;gpus:1' }, frameworks: { f1: { roles: ['r'] }, f2: { roles: ['r'], capabilities: ['GPU_RESOURCES'] } } },
      [['f2', 'r', 'a1', 'cpus:4;gpus:1']],
    ],
    [
      'below the framework minimum',
      { agents: { a1: 'cpus:1;mem:16' }, frameworks: { f: { roles: ['r'], offerFilters: { r: [{ cpus: 2 }] } } } },
      [],
    ],
    [
      'roles in DRF order, each framework in its role',
      { agents: { a1: 'cpus:4;mem:4096', a2: 'cpus:4;mem:4096' }, frameworks: { x: { roles: ['b'] }, y: { roles: ['a'] } } },
      [
        ['y', 'a', 'a1', 'cpus:4;mem:4096'],
        ['x', 'b', 'a2', 'cpus:4;mem:4096'],
      ],
    ],
  ];

  onBothPaths(fairShareStage, cases);

  describe('frameworks that passed an agent by', () => {
    function filtered(reference: boolean) {
      const { state, agents } = stateOf({ agents: AGENT, frameworks: { f1: { roles: ['r'] } }, reference });
      const f1 = state.frameworks.byId.get('f1');
      if (!f1) throw new Error('no f1');
      state.filters.install(agents[0], f1, 'r', agents[0].available, 10, 0);
      return { state, agents };
    }

    it('are remembered on the fast path until the filter ends', () => {
      const { state, agents } = filtered(false);
      expect(runStage(fairShareStage, state, agents, { now: 1 }).offers).toEqual([]);
      const passed = agents[0].passedBy.get('r');
      expect({ all: passed?.all, until: passed?.until, blocked: [...(passed?.blocked ?? [])] }).toEqual({
        all: true,
        until: 10,
        blocked: [['f1', 'FRAMEWORK_FILTERED']],
      });
      // Skipped whole while it holds; offered once the filter has ended.
      expect(runStage(fairShareStage, state, agents, { now: 5 }).offers).toEqual([]);
      expect(runStage(fairShareStage, state, agents, { now: 11 }).offers).toEqual([['f1', 'r', 'a1', 'cpus:4;mem:4096']]);
    });

    it('are not remembered on the reference path', () => {
      const { state, agents } = filtered(true);
      expect(runStage(fairShareStage, state, agents, { now: 1 }).offers).toEqual([]);
      expect(agents[0].passedBy.size).toBe(0);
    });

    it('are looked at again while a trace keeps its entries', () => {
      const { state, agents } = filtered(false);
      runStage(fairShareStage, state, agents, { now: 1 });
      const { cycle } = runStage(fairShareStage, state, agents, { now: 2, trace: true });
      // The trace is not full: the pass is made again and its entries listed.
      expect(cycle.trace?.entries).toEqual([{ reason: 'FRAMEWORK_FILTERED', agent: 'a1', role: 'r', framework: 'f1', until: 10 }]);
    });
  });

  it('traces an agent with nothing available', () => {
    const { state, agents } = stateOf({ agents: AGENT, frameworks: TWO });
    state.offer(agents[0], 'f1', 'r', agents[0].available);
    const { cycle, offers } = runStage(fairShareStage, state, agents, { trace: true });
    expect(offers).toEqual([]);
    expect(cycle.trace?.entries).toEqual([{ reason: 'NOTHING_AVAILABLE', agent: 'a1' }]);
  });
});
