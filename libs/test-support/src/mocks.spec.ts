import { AgentStatus, FrameworkState, TaskState } from '@arbiter/control-plane/entities';
import { mockAgent, mockFramework, mockOffer, mockTask } from './mocks';

describe('mock factories', () => {
  it('fill every column with a default and take the fields given, leaving out those given as undefined', () => {
    const at = new Date(0);
    expect(mockFramework({ id: 'f', state: FrameworkState.DISCONNECTED, registeredAt: at })).toMatchObject({
      name: 'fw-f',
      state: 'DISCONNECTED',
      disconnectedAt: at,
      completedAt: null,
    });
    const agent = mockAgent({ id: 'a', hostname: undefined, resources: 'cpus:2;mem:1024' });
    expect(agent).toMatchObject({ hostname: 'a.example', status: AgentStatus.REACHABLE, activated: true });
    expect(agent.resources).toEqual([
      { name: 'cpus', value: 2 },
      { name: 'mem', value: 1024 },
    ]);
    expect(mockTask({ taskId: 't', cpus: 2, state: TaskState.STAGING })).toMatchObject({
      name: 't',
      frameworkId: 'f1',
      state: 'STAGING',
      resources: [
        { name: 'cpus', value: 2 },
        { name: 'mem', value: 512 },
      ],
    });
    const [o1, o2] = [mockOffer(), mockOffer({ role: 'r' })];
    expect([o1.state, o2.role, o1.id === o2.id]).toEqual(['OUTSTANDING', 'r', false]);
  });
});
