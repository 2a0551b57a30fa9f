import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { cache: boolean } };
}
// Jest's sequencer, as Jest loads it (plain JavaScript, beside the tiers' setups).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CasesSequencer = require('../setup/sequencer') as new (options: unknown) => { sort(tests: FakeTest[]): FakeTest[] };

describe("the order of test files Jest has no time for (a first run's)", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-sequencer-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, bytes: number) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), 'x'.repeat(bytes));
    return path.join(dir, name);
  };
  const order = (files: string[]) =>
    new CasesSequencer({})
      .sort(files.map((f) => ({ path: f, context: { config: { cache: false } } })))
      .map((t) => path.relative(dir, t.path));

  it('starts a file of cases by what its cases weigh, largest first', () => {
    const group = file('group.spec.ts', 100);
    file('group/one.cases.ts', 6_000);
    file('group/two.cases.ts', 6_000);
    file('group/helper.ts', 50_000);
    const big = file('big.spec.ts', 10_000);
    const small = file('small.spec.ts', 1_000);
    expect(order([small, big, group])).toEqual(['group.spec.ts', 'big.spec.ts', 'small.spec.ts']);
  });

  it('weighs a file without cases by its own size', () => {
    const lone = file('lone.spec.ts', 5_000);
    fs.mkdirSync(path.join(dir, 'lone'));
    const other = file('other.spec.ts', 4_000);
    expect(order([other, lone])).toEqual(['lone.spec.ts', 'other.spec.ts']);
  });
});
