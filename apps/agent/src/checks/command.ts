/**
 * The runners of checks' commands. A task run as a plain process: a shell as the task's user,
 * in its sandbox, with its environment, held (as the launcher holds a task) until it is in the
 * task's cgroup, so it counts against the task's limits as Mesos's checks do. A task in a
 * container (an image's, run by runc): the command runs inside it (`runc exec`), in its
 * namespaces and cgroups, as Mesos runs checks as nested containers of the task's; it sees the
 * image's files and the task's own /tmp, and is killed (with what it started) on a timeout.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Command } from '@arbiter/contracts';
import type { CommandRunner } from './probes';

export interface CheckTarget {
  sandbox: string;
  /** The task's user, when the agent switches to it (it runs as root). */
  uid?: number;
  gid?: number;
  env: NodeJS.ProcessEnv;
  /** Puts the just-spawned command where the task is (its cgroup); throws when it cannot. */
  join(pid: number): void;
  /** A task in a container: the command line that runs argv inside it, and where that writes the pid it runs. */
  container?: (argv: string[]) => { argv: string[]; pidFile: string };
}

const GATE = `read -r go <&3; exec 3<&-; [ "$go" = go ] || exit 125;`;

export function processRunner(target: CheckTarget): CommandRunner {
  return (command: Command, signal: AbortSignal) =>
    new Promise((resolve) => {
      const shell = 'shell' in command;
      const argv = shell ? [] : [command.value, ...(command.arguments ?? [])];
      const script = shell ? `${GATE} eval "$ARBITER_CHECK_SHELL"` : `${GATE} exec "$@"`;
      const env = { ...target.env, ...(shell ? { ARBITER_CHECK_SHELL: command.shell } : {}) };
      const child = spawn('/bin/sh', ['-c', script, 'arbiter-check', ...argv], {
        cwd: target.sandbox,
        env,
        stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
        detached: true,
        ...(target.uid !== undefined && target.gid !== undefined ? { uid: target.uid, gid: target.gid } : {}),
      });
      const gate = child.stdio[3] as NodeJS.WritableStream | null;
      gate?.on('error', () => undefined);
      // The command and whatever it started go when the check gives up on it.
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      };
      signal.addEventListener('abort', killGroup, { once: true });
      child.once('error', (e) => resolve({ error: `could not run the check's command: ${e.message}` }));
      child.once('exit', (code, sig) => {
        signal.removeEventListener('abort', killGroup);
        killGroup();
        resolve(code === null ? { error: `the check's command was killed by ${sig}` } : { exitCode: code });
      });
      try {
        if (child.pid) target.join(child.pid);
        gate?.end('go\n');
      } catch (e) {
        gate?.end();
        killGroup();
        resolve({ error: `could not isolate the check's command: ${(e as Error).message}` });
      }
    });
}

/** What runs `command` inside the task's container (`runc exec`); its process and their children are killed on abort. */
export function containerRunner(exec: NonNullable<CheckTarget['container']>): CommandRunner {
  return (command: Command, signal: AbortSignal) =>
    new Promise((resolve) => {
      const argv = 'shell' in command ? ['/bin/sh', '-c', command.shell] : [command.value, ...(command.arguments ?? [])];
      const line = exec(argv);
      const child = spawn(line.argv[0], line.argv.slice(1), { stdio: 'ignore', detached: true });
      const inside = () => {
        try {
          return Number(fs.readFileSync(line.pidFile, 'utf8').trim()) || undefined;
        } catch {
          return undefined;
        }
      };
      // runc exec's group (what it runs keeps it), then what it runs and its children, wherever they went.
      const killAll = () => {
        const pid = inside();
        for (const target of [...(child.pid ? [-child.pid] : []), ...(pid ? [pid, ...descendants(pid)] : [])]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
      };
      signal.addEventListener('abort', killAll, { once: true });
      child.once('error', (e) => resolve({ error: `could not run the check's command: ${e.message}` }));
      child.once('exit', (code, sig) => {
        signal.removeEventListener('abort', killAll);
        if (child.pid) killGroup(child.pid);
        // Aborted before runc had written what it runs: that may have started since.
        if (signal.aborted) killAll();
        fs.rmSync(line.pidFile, { force: true });
        // runc exec exits with the status of what it ran.
        resolve(code === null ? { error: `the check's command was killed by ${sig}` } : { exitCode: code });
      });
    });
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The processes below `pid` (host pids, from /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      continue;
    }
  }
  const found: number[] = [];
  for (const queue = [pid]; queue.length;) {
    const next = children.get(queue.pop() ?? pid) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}
