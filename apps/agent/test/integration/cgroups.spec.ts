/**
 * The cgroups isolator on this machine's cgroups (as root, where they are writable): a
 * container's memory limit grows and shrinks in place, as an executor's does when its tasks
 * start and end (cgroups v1 keeps memory+swap at or above memory, so the order of writes matters).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Isolator } from '../../src/containerizer/isolators/cgroups';

const isolator = Isolator.detect('/sys/fs/cgroup', `arbiter-test-${process.pid}`);
const MIB = 1024 * 1024;

it('grows and shrinks a memory limit in place', () => {
  if (isolator.mode === 'posix') {
    // Without writable cgroups (not root) there is no limit to change; nothing is created.
    expect(isolator.create('resize', { memBytes: 64 * MIB, pids: 100 })).toBeUndefined();
    return;
  }
  const read = (cg: ReturnType<Isolator['create']>, file: string) =>
    Number(fs.readFileSync(path.join(cg?.dirs.memory ?? '', file), 'utf8'));
  const limitFile = isolator.mode === 'cgroups-v1' ? 'memory.limit_in_bytes' : 'memory.max';
  const cg = isolator.create('resize', { memBytes: 64 * MIB, pids: 100 });
  try {
    expect(read(cg, limitFile)).toBe(64 * MIB);
    expect(isolator.create('resize', { memBytes: 256 * MIB, pids: 100 })).toBeDefined();
    expect(read(cg, limitFile)).toBe(256 * MIB);
    isolator.create('resize', { memBytes: 32 * MIB, pids: 100 });
    expect(read(cg, limitFile)).toBe(32 * MIB);
    if (fs.existsSync(path.join(cg?.dirs.memory ?? '', 'memory.memsw.limit_in_bytes')))
      expect(read(cg, 'memory.memsw.limit_in_bytes')).toBe(32 * MIB);
  } finally {
    if (cg) isolator.remove(cg);
  }
});
