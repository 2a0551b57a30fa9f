/**
 * An isolator module loaded from a modules file, with real processes: the example
 * examples/modules/disk-du (Mesos's disk/du as a module), built in the test (its TypeScript
 * compiled to a package), measures each task's sandbox and ends the one over its limit with
 * REASON_CONTAINER_LIMITATION_DISK, while a task under the limit finishes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadModules, readModulesFile } from '@arbiter/modules';
import { until } from '@arbiter/test-support';
import { transformSync } from '@swc/core';
import { executorBed } from '../../support/executor-bed';

const EXAMPLE = path.resolve(__dirname, '../../../../../examples/modules/disk-du');

describe('an isolator module (real processes)', () => {
  const bed = executorBed('arbiter-agent-isolator-module-');

  it('ends a task whose sandbox outgrows the limit with the module limitation, and leaves a small one alone', async () => {
    const pkg = path.join(bed.dir, 'modules', 'node_modules', 'disk-du');
    fs.mkdirSync(pkg, { recursive: true });
    const source = fs.readFileSync(path.join(EXAMPLE, 'index.ts'), 'utf8');
    // SWC, as the workspace's own TypeScript is compiled: loading the TypeScript compiler in a test file costs more than the test.
    const js = transformSync(source, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
    fs.writeFileSync(path.join(pkg, 'index.js'), js.code);
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'disk-du', version: '1.0.0', main: 'index.js' }));
    const file = path.join(bed.dir, 'modules', 'modules.json');
    fs.writeFileSync(file, JSON.stringify({ modules: [{ use: 'disk-du', parameters: { limitMb: 2 } }] }));
    const modules = await loadModules(readModulesFile(file), { host: 'agent' });
    const agent = await bed.agentOn({ modules });

    bed.cp.launch({
      frameworkId: 'fw',
      task: {
        taskId: 'small',
        name: 'small',
        command: { shell: 'head -c 100000 /dev/zero > data && cat .disk-limit > seen.txt' },
        resources: [{ name: 'cpus', value: 0.1 }],
      },
    });
    bed.cp.launch({
      frameworkId: 'fw',
      task: {
        taskId: 'big',
        name: 'big',
        command: { shell: 'head -c 4000000 /dev/urandom > data && sleep 60' },
        resources: [{ name: 'cpus', value: 0.1 }],
      },
    });
    await until(() => bed.cp.states('small').includes('FINISHED'), 20_000, 'the small task finishes');
    expect(fs.readFileSync(path.join(agent.tasks.sandboxOf('fw', 'small'), 'seen.txt'), 'utf8').trim()).toBe(String(2 * 1024 * 1024));
    await until(() => bed.cp.states('big').includes('FAILED'), 20_000, 'the big task ends');
    const failed = bed.cp.last('big');
    expect(failed?.reason).toBe('REASON_CONTAINER_LIMITATION_DISK');
    // What the sandbox held when the module looked: over the limit, at most the whole file (3.8 MB),
    // which the task may still be writing on a loaded machine.
    const held = /^disk quota exceeded: the sandbox holds (\d+\.\d) MB of 2\.0 MB \(isolator module disk-du\)$/.exec(failed?.message ?? '');
    expect(held?.[0]).toBe(failed?.message);
    expect(Number(held?.[1])).toBeGreaterThan(2);
    expect(Number(held?.[1])).toBeLessThanOrEqual(3.9);
    expect(modules.counters.all().map((c) => [c.module, c.point, c.failures, c.timeouts])).toEqual([['disk-du', 'agent:isolator', 0, 0]]);
  });
});
