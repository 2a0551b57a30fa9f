import { addRevocable, NO_REVOCABLE, sumRevocable } from './revocable';

describe('revocable sums', () => {
  it('adds only the revocable entries of resource lists, exactly', () => {
    expect(
      sumRevocable([
        [
          { name: 'cpus', value: 4 },
          { name: 'cpus', value: 0.1, revocable: true },
        ],
        [
          { name: 'cpus', value: 0.2, revocable: true },
          { name: 'mem', value: 64, revocable: true },
          { name: 'ports', ranges: [[1, 2]] },
        ],
      ]),
    ).toEqual({ cpus: 0.3, mem: 64 });
    expect(sumRevocable([[{ name: 'cpus', value: 4 }]])).toEqual({});
  });

  it("adds agents' revocable resources up, and nothing to nothing", () => {
    expect(
      addRevocable([
        { total: { cpus: 0.1 }, used: {}, offered: { cpus: 0.1 } },
        { total: { cpus: 0.2, mem: 10 }, used: { mem: 10 }, offered: {} },
      ]),
    ).toEqual({ total: { cpus: 0.3, mem: 10 }, used: { mem: 10 }, offered: { cpus: 0.1 } });
    expect(addRevocable([])).toEqual(NO_REVOCABLE);
  });
});
