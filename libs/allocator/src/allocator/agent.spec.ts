import { parseResources, Resources } from '../resources';
import { Agent } from './agent';
import { AllocatorError } from './types';

const VOLUME = Resources.of([{ name: 'disk', value: 100, shared: true, volume: 'v1' }]);
/** Mesos text, where `+v1` adds one copy of the shared volume v1 (disk:100). */
const r = (text: string) => (text.endsWith('+v1') ? parseResources(text.slice(0, -3)).plus(VOLUME) : parseResources(text));
const agentOf = (total: string) => new Agent('ag', 0, r(total), new Map());

describe('Agent bookkeeping', () => {
  describe('decreaseAvailable (an offer)', () => {
    it.each([
      // total                  offered                      allocated after          available after
      ['cpus:4;mem:4096', 'cpus:4;mem:4096', 'cpus:4;mem:4096', ''],
      ['cpus:4;mem:4096', 'cpus:1;mem:1024', 'cpus:1;mem:1024', 'cpus:3;mem:3072'],
      ['cpus:4;ports:[31000-31009]', 'ports:[31000-31004]', 'ports:[31000-31004]', 'cpus:4;ports:[31005-31009]'],
    ])('total %s, offer %s: allocated %s, available %s', (total, offered, allocated, available) => {
      const agent = agentOf(total);
      agent.decreaseAvailable('f', 'r', r(offered));
      expect(agent.allocated.toString()).toBe(allocated);
      expect(agent.available.toString()).toBe(available);
      expect(agent.heldBy('f', 'r').toString()).toBe(offered);
      expect(agent.allocations().get('f')?.get('r')?.toString()).toBe(offered);
    });

    it('takes the whole available as the total (no arithmetic) when the agent fits', () => {
      const agent = agentOf('cpus:4;mem:4096');
      agent.decreaseAvailable('f', 'r', agent.available);
      expect(agent.allocated).toBe(agent.total);
      expect(agent.exhausted()).toBe(true);
    });

    it.each([
      // total              already offered     offer refused
      ['cpus:4;mem:4096', '', 'cpus:5'],
      ['cpus:4;mem:4096', 'cpus:3', 'cpus:2'],
      ['cpus:4;ports:[31000-31009]', '', 'ports:[31005-31010]'],
      ['cpus:4', '', 'gpus:1'],
    ])('total %s with %s offered refuses %s and stays as it was', (total, before, refused) => {
      const agent = agentOf(total);
      if (before) agent.decreaseAvailable('f', 'r', r(before));
      const available = agent.available;
      const allocated = agent.allocated;
      expect(() => agent.decreaseAvailable('g', 'r', r(refused))).toThrow(
        expect.objectContaining({ code: 'INSUFFICIENT_RESOURCES' }) as AllocatorError,
      );
      expect(agent.available).toBe(available);
      expect(agent.allocated).toBe(allocated);
      expect(agent.holds('g')).toBe(false);
    });

    it('offers a shared volume to every framework that takes one (it is not taken from available)', () => {
      const agent = agentOf('cpus:4+v1');
      agent.decreaseAvailable('f', 'r', r('cpus:1+v1'));
      expect(agent.available.toString()).toBe('cpus:3');
      expect(() => agent.decreaseAvailable('g', 'r', r('cpus:1+v1'))).not.toThrow();
      expect(agent.heldBy('g', 'r').equals(r('cpus:1+v1'))).toBe(true);
    });
  });

  describe('increaseAvailable (a recovery)', () => {
    it('gives back what is held and finds the available resources of before by identity', () => {
      const agent = agentOf('cpus:4;mem:4096');
      const before = agent.available;
      agent.decreaseAvailable('f', 'r', r('cpus:1'));
      agent.increaseAvailable('f', 'r', r('cpus:1'));
      expect(agent.available).toBe(before);
      expect(agent.allocated.isEmpty()).toBe(true);
      expect(agent.holds('f')).toBe(false);
    });

    it.each([
      // held          given back      who
      ['cpus:1', 'cpus:2', 'f'],
      ['cpus:1', 'cpus:1', 'g'],
      ['cpus:1', 'mem:1', 'f'],
      ['', 'cpus:1', 'f'],
    ])('holding %s refuses to take back %s from %s', (held, back, who) => {
      const agent = agentOf('cpus:4;mem:4096');
      if (held) agent.decreaseAvailable('f', 'r', r(held));
      const available = agent.available;
      expect(() => agent.increaseAvailable(who, 'r', r(back))).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as AllocatorError,
      );
      expect(agent.available).toBe(available);
    });

    it('refuses what the framework holds under another role', () => {
      const agent = agentOf('cpus:4');
      agent.decreaseAvailable('f', 'a', r('cpus:1'));
      expect(() => agent.increaseAvailable('f', 'b', r('cpus:1'))).toThrow(AllocatorError);
      agent.increaseAvailable('f', 'a', r('cpus:0.5'));
      expect(agent.heldBy('f', 'a').toString()).toBe('cpus:0.5');
    });
  });

  describe('over-allocation', () => {
    it('records tasks in use beyond the total (available clamps at zero) until enough is given back', () => {
      const agent = agentOf('cpus:2');
      agent.addUsed('f', 'r', r('cpus:3'));
      expect(agent.available.isEmpty()).toBe(true);
      expect(agent.exhausted()).toBe(true);
      expect(() => agent.decreaseAvailable('g', 'r', r('cpus:0.5'))).toThrow(AllocatorError);
      agent.increaseAvailable('f', 'r', r('cpus:2'));
      expect(agent.available.toString()).toBe('cpus:1');
    });

    it('a smaller total keeps what is allocated', () => {
      const agent = agentOf('cpus:4;mem:4096');
      agent.decreaseAvailable('f', 'r', r('cpus:3'));
      agent.setTotal(r('cpus:2;mem:4096'));
      expect(agent.allocated.toString()).toBe('cpus:3');
      expect(agent.available.toString()).toBe('mem:4096');
      agent.increaseAvailable('f', 'r', r('cpus:3'));
      expect(agent.available.toString()).toBe('cpus:2;mem:4096');
    });
  });

  it.each([
    // total                      taken              takesAll(rest)  exhausted after taking the rest
    ['cpus:4;mem:4096', 'cpus:1', true, true],
    ['cpus:4+v1', 'cpus:1', false, false],
  ])('total %s, %s taken: the rest takes all: %s, then exhausted: %s', (total, taken, takesAll, exhausted) => {
    const agent = agentOf(total);
    agent.decreaseAvailable('f', 'r', r(taken));
    const rest = agent.available;
    expect(agent.takesAll(rest)).toBe(takesAll);
    agent.decreaseAvailable('g', 'r', rest);
    expect(agent.exhausted()).toBe(exhausted);
  });

  it('knows what kind of total it has', () => {
    expect([agentOf('cpus:4').plain, agentOf('cpus(a):4').plain, agentOf('gpus:1').hasGpus, agentOf('cpus:1').hasGpus]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
