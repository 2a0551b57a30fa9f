import { spawn } from 'node:child_process';
import { kernelMemoryLimitation, MemoryPolling } from './memory';

describe('posix/mem isolator', () => {
  it('reports a process group over its limit, and leaves tasks in a memory cgroup to the kernel', async () => {
    const child = spawn(
      process.execPath,
      ['-e', 'const a=Buffer.alloc(64*1024*1024,1); process.stdout.write("ready"); setInterval(()=>a,1000)'],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const pid = child.pid ?? 0;
      let now = 0;
      const poll = new MemoryPolling(() => (now += 1_000));
      expect(poll.watch({ name: 'c', sandbox: '/', pid, limits: { pids: 1, memBytes: 32 * 1024 * 1024 } })?.message).toMatch(
        /^memory limit exceeded: used \d+ MB of 32 MB$/,
      );
      expect(poll.watch({ name: 'c', sandbox: '/', pid, limits: { pids: 1, memBytes: 1024 * 1024 * 1024 } })).toBeUndefined();
      expect(
        poll.watch({ name: 'c', sandbox: '/', pid, limits: { pids: 1, memBytes: 1 }, cgroup: { dirs: { memory: '/sys/fs/cgroup/x' } } }),
      ).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("says the kernel's kill at a cgroup's limit in the task's terms", () => {
    expect(kernelMemoryLimitation(96 * 1024 * 1024)).toEqual({
      reason: 'REASON_CONTAINER_LIMITATION_MEMORY',
      message: 'memory limit exceeded: the kernel killed the task at its limit of 96 MB',
    });
  });
});
