/**
 * The default runner of checks' commands for tasks run as plain processes: a shell as the
 * task's user, in its sandbox, with its environment, held (as the launcher holds a task) until
 * it is in the task's cgroup, so it counts against the task's limits as Mesos's checks do. A
 * task in a container gets another runner (`runc exec`, say) through the task runner's options.
 */
import { spawn } from 'node:child_process';
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
