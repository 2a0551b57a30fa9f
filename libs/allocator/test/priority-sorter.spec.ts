/**
 * The priority-then-fair sorter: its scenarios (libs/allocator/scenarios/priority-then-fair-*)
 * pass with it and fail under plain DRF (so they test the policy, not DRF), and the same sorter
 * given as a policy (as a sorter module gives it) replays them the same way.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DRFSorter, priorityOf, priorityThenFair, PriorityDRFSorter, runScenario, SorterPool } from '../src';

const dir = path.resolve(__dirname, '../scenarios');
const files = fs.readdirSync(dir).filter((f) => f.startsWith('priority-then-fair-'));
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { config: Record<string, unknown> };

describe('priority-then-fair', () => {
  it('has scenarios', () => expect(files.length).toBeGreaterThanOrEqual(3));

  it.each(files)('%s passes with the priorities and fails under DRF alone', (f) => {
    const doc = read(f);
    expect(runScenario(doc).failures).toEqual([]);
    const { rolePriorities, ...config } = doc.config;
    expect(runScenario({ ...doc, config }).passed).toBe(false);
    // The same sorter as a policy (a module's sorterFactory) instead of the scenario's own setting.
    expect(runScenario({ ...doc, config }, { sorterFactory: priorityThenFair(rolePriorities as Record<string, number>) }).failures).toEqual(
      [],
    );
  });

  it('takes the nearest ancestor priority, else 0', () => {
    const p = { eng: 10, 'eng/ci': 3 };
    expect([priorityOf(p, 'eng/ci/x'), priorityOf(p, 'eng/web'), priorityOf(p, 'ops')]).toEqual([3, 10, 0]);
  });

  it('orders by priority, then as DRF does, and keeps DRF books', () => {
    const pool = new SorterPool();
    const sorter = new PriorityDRFSorter({ b: 1 }, { pool });
    const drf = new DRFSorter({ pool });
    pool.set('agent', new Map([['cpus', 10_000]]));
    for (const s of [sorter, drf])
      for (const c of ['a', 'b', 'c']) {
        s.add(c);
        s.activate(c);
      }
    for (const s of [sorter, drf]) s.allocated('c', 'agent', new Map([['cpus', 5_000]]));
    expect(drf.sort()).toEqual(['a', 'b', 'c']);
    expect(sorter.sort()).toEqual(['b', 'a', 'c']);
    expect(sorter.share('c')).toBe(drf.share('c'));
    sorter.allocated('b', 'agent', new Map([['cpus', 9_000]]));
    expect(sorter.sort()).toEqual(['b', 'a', 'c']);
    const cursor = sorter.cursor();
    expect([cursor.next(), cursor.rest()]).toEqual(['b', ['a', 'c']]);
  });
});
