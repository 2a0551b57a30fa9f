/** Fake NVIDIA device nodes for the gpu/nvidia isolator's tests. */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * Makes nvidia0, nvidia1 and nvidiactl (major 195) in `dev`, as only root can; elsewhere nothing.
 * No driver stands behind them: opening one gives ENXIO, where a devices cgroup would give EPERM.
 */
export function makeNvidiaNodes(dev: string): void {
  if (process.getuid?.() !== 0) return;
  for (const [name, minor] of [
    ['nvidia0', 0],
    ['nvidia1', 1],
    ['nvidiactl', 255],
  ] as const)
    execFileSync('mknod', ['-m', '666', path.join(dev, name), 'c', '195', String(minor)]);
}
