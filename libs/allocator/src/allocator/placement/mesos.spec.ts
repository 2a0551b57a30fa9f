import { parseResources } from '../../resources';
import { MesosPlacement } from './mesos';

const agents = ['a', 'b', 'c', 'd'].map((id) => ({ id, total: parseResources('cpus:1'), allocated: parseResources('') }));
const ids = (list: ReadonlyArray<{ id: string }>) => list.map((a) => a.id).join('');

describe('mesos placement', () => {
  it('keeps the given order (the same list) without shuffling', () => {
    expect(new MesosPlacement(false, Math.random).order(agents)).toBe(agents);
  });

  it.each([
    // Fisher-Yates from the end: j = floor(random * (i + 1)) for i = 3, 2, 1
    ['always 0: each swapped with the first', [0, 0, 0], 'bcda'],
    ['always just under 1: each stays', [0.999, 0.999, 0.999], 'abcd'],
    ['0.5 each time', [0.5, 0.5, 0.5], 'adbc'],
  ])('shuffles with the injected randomness: %s', (_name, draws, expected) => {
    let i = 0;
    const placement = new MesosPlacement(true, () => draws[i++]);
    expect(ids(placement.order(agents))).toBe(expected);
    expect(i).toBe(3);
    expect(ids(agents)).toBe('abcd');
  });
});
