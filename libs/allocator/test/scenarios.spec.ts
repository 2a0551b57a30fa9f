/**
 * Every scenario file runs as one test: the allocator's own suite (libs/allocator/scenarios)
 * and the shared examples beside the repository (../shared/scenarios) when present.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runScenario } from '../src';

const repoRoot = path.resolve(__dirname, '../../..');
const folders = [path.join(repoRoot, 'libs/allocator/scenarios'), path.resolve(repoRoot, '../shared/scenarios')];
const files = folders
  .filter((dir) => fs.existsSync(dir))
  .flatMap((dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f)));

describe('scenarios', () => {
  it('finds scenario files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [path.relative(repoRoot, f), f]))('%s', (_name, file) => {
    const result = runScenario(JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
  });
});
