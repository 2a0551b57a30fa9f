import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../../..');
const bin = path.join(repoRoot, 'apps/cli/bin/arbiter.js');
/** The example scenarios of the scenario format, kept in the repository. */
const examples = path.join(repoRoot, 'libs/allocator/scenarios/examples');
const example = path.join(repoRoot, 'libs/allocator/scenarios/sorter-drf-example.json');

/** The parts of a scenario file these tests change (see libs/allocator/scenarios). */
interface ScenarioDoc {
  id: string;
  steps: Array<{ op: string; [field: string]: unknown }>;
}

function arbiter(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: repoRoot });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('arbiter simulate', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-simulate-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, doc: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(doc));
    return file;
  };
  const base = JSON.parse(fs.readFileSync(example, 'utf8')) as ScenarioDoc;

  it('exits 0 and prints PASS when every expectation holds', () => {
    const files = [example, ...fs.readdirSync(examples).map((f) => path.join(examples, f))];
    expect(files.length).toBeGreaterThan(2);
    const r = arbiter('simulate', ...files);
    expect(r.out).toMatch(/PASS /);
    expect(r.out).not.toMatch(/FAIL /);
    expect(r.status).toBe(0);
  });

  it('exits 1 with a readable diff when an expectation fails', () => {
    const wrong = structuredClone(base);
    const step = wrong.steps.findIndex((s) => s.op === 'expectSort');
    const expectSort = wrong.steps[step] as { op: 'expectSort'; order: string[] };
    expectSort.order = [...expectSort.order].reverse();
    const r = arbiter('simulate', write('wrong.json', wrong));
    expect(r.status).toBe(1);
    expect(r.out).toContain(`FAIL ${base.id}`);
    expect(r.out).toContain(`step ${step} expectSort: sort order differs`);
    expect(r.out).toMatch(/^\s+- /m);
    expect(r.out).toMatch(/^\s+\+ /m);
  });

  it('exits 2 naming the file, step and field when a file is invalid', () => {
    const invalid = structuredClone(base);
    invalid.steps[1] = { op: 'allocatedd', client: 'a' };
    const file = write('invalid.json', invalid);
    const r = arbiter('simulate', file);
    expect(r.status).toBe(2);
    expect(r.out).toContain(`INVALID ${file}: step 1: op: unknown op "allocatedd"`);
  });

  it('exits 2 for a file that is not JSON', () => {
    const file = path.join(dir, 'broken.json');
    fs.writeFileSync(file, '{"id": ');
    const r = arbiter('simulate', file);
    expect(r.status).toBe(2);
    expect(r.out).toContain('invalid JSON');
  });

  it('prints a machine-readable report with --json', () => {
    const r = arbiter('simulate', '--json', example);
    const report = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { passed: boolean; scenarios: Array<{ result: { id: string } }> };
    expect(report.passed).toBe(true);
    expect(report.scenarios[0].result.id).toBe(base.id);
  });

  it('replays with the sorter of a modules file (the priority-sorter example), and refuses a module it cannot load', () => {
    // The priority-then-fair scenarios without their own priorities: they pass only under the module's sorter.
    const scenarios = fs
      .readdirSync(path.join(repoRoot, 'libs/allocator/scenarios'))
      .filter((f) => f.startsWith('priority-then-fair-'))
      .map((f) => {
        const doc = JSON.parse(fs.readFileSync(path.join(repoRoot, 'libs/allocator/scenarios', f), 'utf8')) as ScenarioDoc & {
          config: Record<string, unknown>;
        };
        const { rolePriorities, ...config } = doc.config;
        return { file: write(f, { ...doc, config }), priorities: rolePriorities };
      });
    expect(scenarios.length).toBeGreaterThanOrEqual(3);
    for (const { file, priorities } of scenarios) {
      const modules = write('modules.json', {
        modules: [{ use: path.join(repoRoot, 'examples/modules/priority-sorter'), parameters: { priorities } }],
      });
      const drf = arbiter('simulate', file);
      expect(drf.status).toBe(1);
      const r = arbiter('simulate', '--modules', modules, file);
      expect(r.out).toContain('with modules: priority-sorter (allocator:sorter)');
      expect(r.status).toBe(0);
    }
    const missing = write('missing.json', { modules: [{ use: '@acme/not-installed' }] });
    const r = arbiter('simulate', '--modules', missing, example);
    expect(r.status).toBe(2);
    expect(r.out.trim()).toBe(`module '@acme/not-installed' (${missing}) could not be loaded: Cannot find module '@acme/not-installed'.`);
  });
});
