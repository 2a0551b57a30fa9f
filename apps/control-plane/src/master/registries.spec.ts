import { AgentRegistry, type AgentSocket } from './agent-registry';
import { type FrameworkConnection, FrameworkRegistry } from './framework-registry';
import { runIn } from '../kernel/order';
import { ExecutorRegistry, type ExecutorRuntime, executorKey } from './executor-registry';
import type { Actor } from '../auth/auth.actor';

const inTurn = (body: () => void) => () => runIn('turn', body);
const agent = (id: string) => ({ id, hostname: `${id}.host`, attributes: {}, lastSeen: 0, inAllocator: false });
const framework = (id: string) => ({ id, name: id, roles: ['r'], capabilities: [], failoverTimeoutSeconds: 10 });

describe('agent registry', () => {
  it(
    'records what happens to an agent, each through its own method, and keeps the object it was given',
    inTurn(() => {
      const agents = new AgentRegistry();
      const a = agent('a1');
      agents.put(a);
      agents.put(agent('a2'));
      expect(agents.get('a1')).toBe(a);
      expect(agents.size).toBe(2);
      agents.seen('a1', 5);
      agents.addedToAllocator('a1');
      agents.attributesChanged('a1', { rack: 'r1' });
      agents.drainStarted('a1', true);
      expect(agents.get('a1')).toMatchObject({ lastSeen: 5, inAllocator: true, attributes: { rack: 'r1' }, draining: { markGone: true } });
      agents.drainEnded('a1');
      expect(agents.get('a1')?.draining).toBeUndefined();
      agents.put({ ...agent('a3'), socket: { id: 's' } as AgentSocket });
      agents.disconnected('a3');
      expect(agents.get('a3')?.socket).toBeUndefined();
      agents.remove('a2');
      expect(agents.has('a2')).toBe(false);
      expect([...agents.values()].map((x) => x.id)).toEqual(['a1', 'a3']);
      // What happens to an agent it does not know changes nothing.
      agents.seen('a9', 1);
      agents.drainStarted('a9', false);
      expect(agents.has('a9')).toBe(false);
      agents.clear();
      expect(agents.size).toBe(0);
    }),
  );

  it('changes only in the serial order, except for a sign of life, which commutes with it', () => {
    const agents = new AgentRegistry();
    expect(() => agents.put(agent('a1'))).toThrow(/outside the serial order/);
    runIn('turn', () => agents.put(agent('a1')));
    agents.seen('a1', 7);
    expect(agents.get('a1')?.lastSeen).toBe(7);
    for (const change of [
      () => agents.remove('a1'),
      () => agents.disconnected('a1'),
      () => agents.attributesChanged('a1', {}),
      () => agents.addedToAllocator('a1'),
      () => agents.drainStarted('a1', false),
      () => agents.drainEnded('a1'),
    ])
      expect(change).toThrow(/outside the serial order/);
    expect(agents.has('a1')).toBe(true);
  });
});

describe('framework registry', () => {
  it(
    'records subscriptions, descriptions, disconnections and removals',
    inTurn(() => {
      const frameworks = new FrameworkRegistry();
      const f = framework('f1');
      frameworks.put(f);
      expect(frameworks.get('f1')).toBe(f);
      const socket = { id: 's1' } as FrameworkConnection;
      const actor = { kind: 'framework', name: 'p' } as unknown as Actor;
      frameworks.connected('f1', socket, actor, 'alice');
      expect(frameworks.get('f1')).toMatchObject({ socket, actor, user: 'alice' });
      frameworks.describe('f1', { name: 'renamed', roles: ['r2'], capabilities: ['PARTITION_AWARE'], failoverTimeoutSeconds: 3 }, 'bob');
      expect(frameworks.get('f1')).toMatchObject({
        name: 'renamed',
        roles: ['r2'],
        capabilities: ['PARTITION_AWARE'],
        failoverTimeoutSeconds: 3,
        user: 'bob',
      });
      frameworks.disconnected('f1');
      expect(frameworks.get('f1')?.socket).toBeUndefined();
      frameworks.connected('f9', socket, actor, null);
      expect(frameworks.has('f9')).toBe(false);
      frameworks.remove('f1');
      expect(frameworks.size).toBe(0);
    }),
  );

  it('changes only in the serial order', () => {
    const frameworks = new FrameworkRegistry();
    expect(() => frameworks.put(framework('f1'))).toThrow(/outside the serial order/);
    runIn('turn', () => frameworks.put(framework('f1')));
    for (const change of [
      () => frameworks.describe('f1', framework('f1'), null),
      () => frameworks.connected('f1', { id: 's' } as FrameworkConnection, {} as Actor, null),
      () => frameworks.disconnected('f1'),
      () => frameworks.remove('f1'),
    ])
      expect(change).toThrow(/outside the serial order/);
    expect(frameworks.has('f1')).toBe(true);
  });
});

describe('executor registry', () => {
  const executor = (agentId: string, frameworkId: string, executorId: string): ExecutorRuntime => ({
    id: executorKey(agentId, frameworkId, executorId),
    rowId: `${agentId}-${frameworkId}-${executorId}`,
    agentId,
    frameworkId,
    executorId,
    spec: { executorId, type: 'CUSTOM', command: { shell: './e' }, resources: [] },
    role: 'r',
    resources: [],
    startedAt: new Date(0),
  });

  it(
    'finds executors by agent, framework and id, and lists them per agent and per framework until they end',
    inTurn(() => {
      const executors = new ExecutorRegistry();
      executors.launched(executor('a1', 'f1', 'e'));
      executors.launched(executor('a1', 'f2', 'e'));
      executors.launched(executor('a2', 'f1', 'e'));
      // The same executor id of another framework, or on another agent, is another executor.
      expect(executors.find('a1', 'f1', 'e')?.rowId).toBe('a1-f1-e');
      expect(executors.find('a1', 'f3', 'e')).toBeUndefined();
      expect([...executors.onAgent('a1')].map((e) => e.frameworkId)).toEqual(['f1', 'f2']);
      expect([...executors.ofFramework('f1')].map((e) => e.agentId)).toEqual(['a1', 'a2']);
      executors.ended(executorKey('a1', 'f1', 'e'));
      executors.ended(executorKey('a9', 'f1', 'e'));
      expect([...executors.onAgent('a1')].map((e) => e.frameworkId)).toEqual(['f2']);
      expect([...executors.ofFramework('f1')].map((e) => e.agentId)).toEqual(['a2']);
      expect(executors.size).toBe(2);
      executors.clear();
      expect([...executors.onAgent('a1')]).toEqual([]);
    }),
  );

  it('changes only in the serial order', () => {
    const executors = new ExecutorRegistry();
    expect(() => executors.launched(executor('a1', 'f1', 'e'))).toThrow(/outside the serial order/);
    runIn('turn', () => executors.launched(executor('a1', 'f1', 'e')));
    expect(() => executors.ended(executorKey('a1', 'f1', 'e'))).toThrow(/outside the serial order/);
    expect(executors.size).toBe(1);
  });
});
