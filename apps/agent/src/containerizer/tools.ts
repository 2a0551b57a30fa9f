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

/** What probes found so far in this process, by what they asked (see probed). */
const found = new Map<string, unknown>();

/**
 * What `probe` answers about `subject` (a tool, a folder's file system), asked once per process:
 * every agent a process holds (the tests hold many) starts with the same tools, and running a
 * tool from a large process costs it a copy of its page tables (docs/benchmarks.md). Only
 * answers that something works are kept; a probe that failed (a timeout under load, say) is made
 * again next time. `subject` names what the answer depends on: see fileKey and folderKey.
 */
export function probed<T>(subject: string, works: (answer: T) => boolean, probe: () => T): T {
  if (found.has(subject)) return found.get(subject) as T;
  const answer = probe();
  if (works(answer)) found.set(subject, answer);
  return answer;
}

/** A file as a probe's subject: its path and its identity on disk (a replaced or rewritten tool is probed again). */
export function fileKey(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${file}@${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${file}@missing`;
  }
}

/** A folder's file system as a probe's subject (what it mounts depends on the file system). */
export function folderKey(dir: string): string {
  try {
    return `dev:${fs.statSync(dir).dev}`;
  } catch {
    return `dir:${dir}`;
  }
}

/** The tools for private mounts when the agent is root and they work here; else why not. */
export function detectNamespaceTools(root: boolean): { tools: NamespaceTools } | { problem: string } {
  if (!root) return { problem: 'the agent does not run as root' };
  const unshare = systemTool('unshare');
  const mount = systemTool('mount');
  const setpriv = systemTool('setpriv');
  if (!unshare || !mount || !setpriv) return { problem: 'unshare, mount and setpriv (util-linux) are not all installed' };
  return probed(
    `mount namespace ${fileKey(unshare)} ${fileKey(mount)} ${fileKey(setpriv)}`,
    (r: { tools: NamespaceTools } | { problem: string }) => 'tools' in r,
    () => {
      try {
        execFileSync(unshare, ['--mount', '--propagation', 'private', '--', mount, '--make-rprivate', '/'], {
          stdio: 'ignore',
          timeout: 5000,
        });
        return { tools: { unshare, mount, setpriv } };
      } catch (e) {
        return { problem: `a private mount namespace failed here (${(e as Error).message.split('\n')[0]})` };
      }
    },
  );
}

/** Whether a PID namespace (with its own /proc) can be made here: `unshare --pid --fork --mount-proc`. */
export function detectPidNamespace(tools: NamespaceTools): boolean {
  return probed(
    `pid namespace ${fileKey(tools.unshare)}`,
    (works: boolean) => works,
    () => {
      try {
        execFileSync(tools.unshare, ['--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', '--', '/bin/true'], {
          stdio: 'ignore',
          timeout: 5000,
        });
        return true;
      } catch {
        return false;
      }
    },
  );
}
