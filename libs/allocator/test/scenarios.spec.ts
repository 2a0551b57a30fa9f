/**
 * Every scenario file runs as one test: the allocator's own suite (libs/allocator/scenarios)
 * and the example scenarios of the scenario format (libs/allocator/scenarios/examples).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOCATOR_OPS, runScenario, SORTER_OPS } from '../src';

const repoRoot = path.resolve(__dirname, '../../..');
const folders = [path.join(repoRoot, 'libs/allocator/scenarios'), path.join(repoRoot, 'libs/allocator/scenarios/examples')];
const files = folders.flatMap((dir) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f)),
);

describe('scenarios', () => {
  it('finds scenario files', () => {
    expect(files.filter((f) => f.includes('/examples/')).length).toBeGreaterThan(0);
    expect(files.length).toBeGreaterThan(40);
  });

  it.each(files.map((f) => [path.relative(repoRoot, f), f]))('%s', (_name, file) => {
    const result = runScenario(JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe('scenario coverage', () => {
  const own = files.filter((f) => f.includes(path.join('libs', 'allocator', 'scenarios')));
  const docs = own.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { kind: string; steps: Array<{ op: string }> });
  const used = (kind: string) => new Set(docs.filter((d) => d.kind === kind).flatMap((d) => d.steps.map((s) => s.op)));

  it('has at least 30 scenarios of its own', () => {
    expect(own.length).toBeGreaterThanOrEqual(30);
  });

  it.each([
    ['sorter', SORTER_OPS],
    ['allocator', ALLOCATOR_OPS],
  ])('uses every %s op', (kind, ops) => {
    expect([...used(kind)].sort()).toEqual(Object.keys(ops).sort());
  });
});
