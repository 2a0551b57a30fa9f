import { HierarchicalAllocator, parseResources, type AllocatorOptions, type DecisionReason } from '../src';

function allocatorAt(time: { now: number }, config: AllocatorOptions['config'] = {}) {
  return new HierarchicalAllocator({ clock: { now: () => time.now }, config: { shuffleAgents: false, ...config } });
}

/** One cycle with its decision trace, which is there whenever it is asked for. */
function allocateTraced(a: HierarchicalAllocator) {
  const { offers, trace } = a.allocate({ trace: true });
  if (!trace) throw new Error('allocate({ trace: true }) returned no trace');
  return { offers, trace };
}

function reasons(entries: DecisionReason[], code: DecisionReason['reason']) {
  return entries.filter((e) => e.reason === code);
}

describe('decision trace', () => {
  it('is absent unless asked for', () => {
    const a = allocatorAt({ now: 0 });
    a.addAgent('a1', parseResources('cpus:4;mem:4096'));
    a.addFramework('f1', ['r']);
    const result = a.allocate();
    expect(result.offers).toHaveLength(1);
    expect(result.trace).toBeUndefined();
  });

  it('names agents skipped for whitelist, deactivation and maintenance', () => {
    const a = allocatorAt({ now: 0 });
    a.addAgent('a1', parseResources('cpus:4;mem:4096'), { hostname: 'h1' });
    a.addAgent('a2', parseResources('cpus:4;mem:4096'), { hostname: 'h2' });
    a.addAgent('a3', parseResources('cpus:4;mem:4096'), { hostname: 'h3' });
    a.addAgent('a4', parseResources('cpus:4;mem:4096'), { hostname: 'h4' });
    a.addFramework('f1', ['r']);
    a.updateWhitelist(['h2', 'h3', 'h4']);
    a.deactivateAgent('a2');
    a.deactivateAgent('a3', { maintenance: true });
    const { offers, trace } = allocateTraced(a);
    expect(offers.map((o) => o.agentId)).toEqual(['a4']);
    expect(trace.entries).toEqual(
      expect.arrayContaining([
        { reason: 'AGENT_NOT_WHITELISTED', agent: 'a1' },
        { reason: 'AGENT_DEACTIVATED', agent: 'a2' },
        { reason: 'AGENT_IN_MAINTENANCE', agent: 'a3' },
      ]),
    );
    expect(trace.counts).toMatchObject({ AGENT_NOT_WHITELISTED: 1, AGENT_DEACTIVATED: 1, AGENT_IN_MAINTENANCE: 1 });
  });

  it('gives the filter expiry of a declining framework and names a suppressed one', () => {
    const time = { now: 0 };
    const a = allocatorAt(time);
    a.addAgent('a1', parseResources('cpus:4;mem:4096'));
    a.addFramework('f1', ['r']);
    a.addFramework('f2', ['r']);
    const first = a.allocate();
    expect(first.offers).toHaveLength(1);
    const offer = first.offers[0];
    a.recoverResources(offer.frameworkId, 'a1', 'r', offer.resources, 30);
    const other = offer.frameworkId === 'f1' ? 'f2' : 'f1';
    a.suppressOffers(other, ['r']);
    time.now = 5;
    const { offers, trace } = allocateTraced(a);
    expect(offers).toEqual([]);
    expect(reasons(trace.entries, 'FRAMEWORK_FILTERED')).toEqual([
      { reason: 'FRAMEWORK_FILTERED', agent: 'a1', role: 'r', framework: offer.frameworkId, until: 30 },
    ]);
    expect(reasons(trace.entries, 'FRAMEWORK_SUPPRESSED')).toEqual([
      { reason: 'FRAMEWORK_SUPPRESSED', agent: 'a1', role: 'r', framework: other },
    ]);
  });

  it('reports a role at its quota limit with the limit and what it consumes', () => {
    const a = allocatorAt({ now: 0 });
    a.addAgent('a1', parseResources('cpus:4;mem:4096'));
    a.addAgent('a2', parseResources('cpus:4;mem:4096'));
    a.setQuota('capped', {}, { cpus: 4, mem: 4096 });
    a.addFramework('f1', ['capped']);
    const { offers, trace } = allocateTraced(a);
    expect(offers).toHaveLength(1);
    const limited = reasons(trace.entries, 'ROLE_AT_QUOTA_LIMIT');
    expect(limited).toEqual([
      {
        reason: 'ROLE_AT_QUOTA_LIMIT',
        agent: offers[0].agentId === 'a1' ? 'a2' : 'a1',
        role: 'capped',
        framework: 'f1',
        limit: { cpus: 4, mem: 4096 },
        consumed: { cpus: 4, mem: 4096 },
      },
    ]);
  });

  it("reports resources held as headroom for another role's unmet guarantee", () => {
    const a = allocatorAt({ now: 0 });
    a.addAgent('a1', parseResources('cpus:4;mem:4096'));
    a.addAgent('a2', parseResources('cpus:4;mem:4096'));
    a.setQuota('guaranteed', { cpus: 4, mem: 4096 });
    a.addFramework('greedy', ['other']);
    const { offers, trace } = allocateTraced(a);
    // One agent's worth is held back for the role with a guarantee and no framework yet.
    expect(offers).toHaveLength(1);
    const held = reasons(trace.entries, 'HEADROOM_RESERVED');
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ role: 'other', framework: 'greedy', required: { cpus: 4, mem: 4096 } });
  });

  it('reports a missing GPU capability and a leftover below the minimum allocatable', () => {
    const a = allocatorAt({ now: 0 }, { minAllocatableResources: [{ cpus: 1 }] });
    a.addAgent('gpu', parseResources('cpus:4;mem:4096;gpus:1'));
    a.addAgent('small', parseResources('cpus:0.5;mem:4096'));
    a.addFramework('f1', ['r']);
    const { offers, trace } = allocateTraced(a);
    expect(offers).toEqual([]);
    expect(reasons(trace.entries, 'MISSING_CAPABILITY')).toEqual([
      { reason: 'MISSING_CAPABILITY', agent: 'gpu', role: 'r', framework: 'f1', capability: 'GPU_RESOURCES' },
    ]);
    expect(reasons(trace.entries, 'BELOW_MIN_ALLOCATABLE')).toEqual([
      { reason: 'BELOW_MIN_ALLOCATABLE', agent: 'small', role: 'r', framework: 'f1', leftover: { cpus: 0.5, mem: 4096 } },
    ]);
  });

  it('stays bounded on a large cycle and still counts every decision', () => {
    const a = allocatorAt({ now: 0 }, { traceLimit: 10 });
    a.updateWhitelist([]);
    for (let i = 0; i < 500; i++) a.addAgent(`a${i}`, parseResources('cpus:1;mem:1024'));
    a.addFramework('f1', ['r']);
    const { trace } = allocateTraced(a);
    expect(trace.entries).toHaveLength(10);
    expect(trace.truncated).toBe(true);
    expect(trace.counts).toEqual({ AGENT_NOT_WHITELISTED: 500 });
  });
});
