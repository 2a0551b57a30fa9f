import { MesosPlacement } from './placement';
import { quotaStage } from './quota-stage';
import { onBothPaths, runStage, type StageCase, stateOf } from './stage.fixture';

const AGENT = { a1: 'cpus:4;mem:4096' };

describe('quota stage', () => {
  // Headroom: the unmet guarantees of every role stay free for them; a role's own offer beyond
  // its guarantee comes out of the surplus (available - required) and within its limits.
  const cases: StageCase[] = [
    ['no quota: nothing to do', { agents: AGENT, frameworks: { f: { roles: ['r'] } } }, []],
    [
      // guaranteed cpus:2; the rest (cpus:2, mem) is within the surplus (4 - 2 cpus required)
      'a guarantee of cpus:2, no limit: the guarantee and the surplus',
      { agents: AGENT, frameworks: { f: { roles: ['r'] } }, quotas: { r: { guarantees: { cpus: 2 } } } },
      [['f', 'r', 'a1', 'cpus:4;mem:4096']],
    ],
    [
      // the limit leaves cpus:1 beyond the guarantee (3 - 2)
      'a guarantee of cpus:2 limited to cpus:3',
      { agents: AGENT, frameworks: { f: { roles: ['r'] } }, quotas: { r: { guarantees: { cpus: 2 }, limits: { cpus: 3 } } } },
      [['f', 'r', 'a1', 'cpus:3;mem:4096']],
    ],
    [
      // required cpus:4 of 4: no cpus surplus, so r1 gets its guarantee and the mem; r2 the rest
      'two roles guaranteed cpus:2 each share one agent',
      {
        agents: AGENT,
        frameworks: { f1: { roles: ['r1'] }, f2: { roles: ['r2'] } },
        quotas: { r1: { guarantees: { cpus: 2 } }, r2: { guarantees: { cpus: 2 } } },
      },
      [
        ['f1', 'r1', 'a1', 'cpus:2;mem:4096'],
        ['f2', 'r2', 'a1', 'cpus:2'],
      ],
    ],
    [
      'a guarantee the agent has nothing of',
      { agents: AGENT, frameworks: { f: { roles: ['r'] } }, quotas: { r: { guarantees: { gpus: 1 } } } },
      [],
    ],
    [
      // cpus:1 of 1 met by f1 (limited to it): f2 gets nothing in this stage
      'a guarantee met by the first framework of the role',
      {
        agents: AGENT,
        frameworks: { f1: { roles: ['r'] }, f2: { roles: ['r'] } },
        quotas: { r: { guarantees: { cpus: 1 }, limits: { cpus: 1 } } },
      },
      [['f1', 'r', 'a1', 'cpus:1;mem:4096']],
    ],
    [
      'two agents of cpus:1 toward a guarantee of cpus:2',
      {
        agents: { a1: 'cpus:1;mem:1024', a2: 'cpus:1;mem:1024' },
        frameworks: { f: { roles: ['r'] } },
        quotas: { r: { guarantees: { cpus: 2 } } },
      },
      [
        ['f', 'r', 'a1', 'cpus:1;mem:1024'],
        ['f', 'r', 'a2', 'cpus:1;mem:1024'],
      ],
    ],
  ];

  onBothPaths(quotaStage, cases);

  it('leaves placement alone when every guarantee is met', () => {
    const { state, agents } = stateOf({ agents: AGENT, frameworks: { f: { roles: ['r'] } } });
    const placement = new MesosPlacement(true, () => {
      throw new Error('placement consulted');
    });
    expect(runStage(quotaStage, state, agents, { placement }).offers).toEqual([]);
  });

  it('takes the met guarantees out of the required headroom as it offers', () => {
    const { state, agents } = stateOf({
      agents: AGENT,
      frameworks: { f: { roles: ['r'] } },
      quotas: { r: { guarantees: { cpus: 2 } }, idle: { guarantees: { cpus: 1 } } },
    });
    const { cycle } = runStage(quotaStage, state, agents);
    expect([...cycle.requiredHeadroom]).toEqual([['cpus', 1000]]);
  });

  it.each([
    [
      { gpus: 1 },
      'NO_QUOTA_GUARANTEE_ON_AGENT',
      { reason: 'NO_QUOTA_GUARANTEE_ON_AGENT', agent: 'a1', role: 'r', framework: 'f1', unmet: { gpus: 1 } },
    ],
    [{ cpus: 1 }, 'ROLE_QUOTA_MET', { reason: 'ROLE_QUOTA_MET', agent: 'a1', role: 'r', stage: 1 }],
  ])('guarantee %j traces %s', (guarantees, _reason, entry) => {
    const { state, agents } = stateOf({
      agents: AGENT,
      frameworks: { f1: { roles: ['r'] }, f2: { roles: ['r'] } },
      quotas: { r: { guarantees, limits: guarantees } },
    });
    const { cycle } = runStage(quotaStage, state, agents, { trace: true });
    expect(cycle.trace?.entries).toContainEqual(entry);
  });
});
