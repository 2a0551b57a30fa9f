/**
 * The external tools the containerizer uses, named in one place and found at start: util-linux's
 * `unshare`, `mount` and `setpriv` give each task a private /tmp and /dev/shm in a mount
 * namespace of its own. Without them (or without root, or where the kernel refuses a mount
 * namespace) tasks get TMPDIR in their sandbox instead, and the agent says so once at start.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NamespaceTools } from './launcher';

const DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/** The absolute path of a system tool, or undefined (only system directories: never the agent's or a task's PATH). */
export function systemTool(name: string): string | undefined {
  for (const dir of DIRS) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The tools for private mounts when the agent is root and they work here; else why not. */
export function detectNamespaceTools(root: boolean): { tools: NamespaceTools } | { problem: string } {
  if (!root) return { problem: 'the agent does not run as root' };
  const unshare = systemTool('unshare');
  const mount = systemTool('mount');
  const setpriv = systemTool('setpriv');
  if (!unshare || !mount || !setpriv) return { problem: 'unshare, mount and setpriv (util-linux) are not all installed' };
  try {
    execFileSync(unshare, ['--mount', '--propagation', 'private', '--', mount, '--make-rprivate', '/'], { stdio: 'ignore', timeout: 5000 });
  } catch (e) {
    return { problem: `a private mount namespace failed here (${(e as Error).message.split('\n')[0]})` };
  }
  return { tools: { unshare, mount, setpriv } };
}

/** Whether a PID namespace (with its own /proc) can be made here: `unshare --pid --fork --mount-proc`. */
export function detectPidNamespace(tools: NamespaceTools): boolean {
  try {
    execFileSync(tools.unshare, ['--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', '--', '/bin/true'], {
      stdio: 'ignore',
      timeout: 5000,
    });
    return true;
  } catch {
    return false;
  }
}
