import { parseResources } from '../../resources';
import { PackPlacement } from './pack';

const agent = (id: string, total: string, allocated = '') => ({ id, total: parseResources(total), allocated: parseResources(allocated) });
const ids = (list: ReadonlyArray<{ id: string }>) => list.map((a) => a.id);

describe('pack placement', () => {
  it.each([
    [
      // fullness: the largest used fraction of any scalar
      'the most used first',
      [agent('free', 'cpus:8;mem:8192'), agent('half', 'cpus:8;mem:8192', 'cpus:4'), agent('quarter', 'cpus:8;mem:8192', 'mem:2048')],
      ['half', 'quarter', 'free'],
    ],
    [
      // size: the sum of the agent's scalars as fractions of the largest agent's (1 + 1 against 0.5 + 0.5)
      'equally used: the smallest first',
      [agent('big', 'cpus:8;mem:8192'), agent('small', 'cpus:4;mem:4096')],
      ['small', 'big'],
    ],
    ['equally used and sized: by id', [agent('b', 'cpus:4'), agent('a', 'cpus:4'), agent('c', 'cpus:4')], ['a', 'b', 'c']],
    [
      // one used fraction (0.5) beats any size
      'a used big agent before a free small one',
      [agent('small-free', 'cpus:2'), agent('big-half', 'cpus:16', 'cpus:8')],
      ['big-half', 'small-free'],
    ],
  ])('%s', (_name, agents, expected) => {
    const before = ids(agents);
    expect(ids(new PackPlacement().order(agents))).toEqual(expected);
    expect(ids(agents)).toEqual(before);
  });
});
