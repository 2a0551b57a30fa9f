/**
 * The launcher: the only place that forks a task. The task's first process is a small shell
 * wrapper, spawned in a process group of its own as the task's user, that waits for the go on
 * fd 3 until its isolators hold it (its cgroup joined), runs the command, and records its exit
 * status in the sandbox so that a restarted agent can still tell how it ended.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskSpec } from '@arbiter/contracts';
import type { OsUser } from './users';

export const EXIT_STATUS_FILE = '.exit_status';
/**
 * First the wrapper waits for the agent's go on fd 3, sent once the wrapper is in the task's
 * cgroup (so nothing the task starts runs outside it); no go (the agent died): it exits 125.
 * Then it runs the command in a subshell and records its status where a restarted agent can
 * read it. The wrapper catches SIGTERM with a no-op (a caught signal is reset to its default in
 * the subshell), so a task that handles or ignores SIGTERM decides for itself until SIGKILL.
 */
const GATE = `read -r go <&3; exec 3<&-; [ "$go" = go ] || exit 125; cmd=$ARBITER_TASK_SHELL; unset ARBITER_TASK_SHELL;`;
const WRAPPER = `${GATE} trap ':' TERM; ( eval "$cmd" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
const WRAPPER_ARGV = `${GATE} trap ':' TERM; ( "$@" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
/** A task's PATH: the system's directories, nothing of the agent's. */
export const TASK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), or undefined when it does not exist: guards against pid reuse. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

export interface LaunchRequest {
  frameworkId: string;
  spec: TaskSpec;
  sandbox: string;
  user: OsUser;
  /** Whether to switch to the user (the agent runs as root). */
  switchUser: boolean;
}

/** A launch that failed before the task could run (the message says at which step). */
export class LaunchError extends Error {}

/** Exactly the spec's environment and these (documented in docs/security.md). */
function taskEnv({ frameworkId, spec, sandbox, user }: LaunchRequest): NodeJS.ProcessEnv {
  return {
    ...(spec.env ?? {}),
    PATH: spec.env?.PATH ?? TASK_PATH,
    HOME: sandbox,
    LANG: spec.env?.LANG ?? 'C.UTF-8',
    USER: user.name,
    LOGNAME: user.name,
    ARBITER_TASK_ID: spec.taskId,
    ARBITER_FRAMEWORK_ID: frameworkId,
    ARBITER_SANDBOX: sandbox,
    MESOS_SANDBOX: sandbox,
  };
}

/**
 * Forks the task with `stdout` and `stderr` files in its sandbox, has `isolate` hold its first
 * process, then lets it run. Throws LaunchError when it could not start; `isolationError` says
 * when it started but could not be isolated (it is let go without running the command).
 */
export function launch(req: LaunchRequest, isolate: (pid: number) => void): { child: ChildProcess; isolationError?: Error } {
  let out: number, err: number;
  try {
    out = fs.openSync(path.join(req.sandbox, 'stdout'), 'a', 0o600);
    err = fs.openSync(path.join(req.sandbox, 'stderr'), 'a', 0o600);
    fs.fchownSync(out, req.user.uid, req.user.gid);
    fs.fchownSync(err, req.user.uid, req.user.gid);
  } catch (e) {
    throw new LaunchError(`could not prepare the task: ${(e as Error).message}`);
  }
  const env = taskEnv(req);
  const command = req.spec.command;
  let args: string[];
  if ('shell' in command) {
    env.ARBITER_TASK_SHELL = command.shell;
    args = ['-c', WRAPPER];
  } else {
    args = ['-c', WRAPPER_ARGV, 'arbiter-task', command.value, ...(command.arguments ?? [])];
  }
  try {
    const child = spawn('/bin/sh', args, {
      cwd: req.sandbox,
      env,
      stdio: ['ignore', out, err, 'pipe'],
      detached: true,
      ...(req.switchUser ? { uid: req.user.uid, gid: req.user.gid } : {}),
    });
    return { child, isolationError: release(child, isolate) };
  } catch (e) {
    throw new LaunchError(`could not start the task: ${(e as Error).message}`);
  } finally {
    fs.closeSync(out);
    fs.closeSync(err);
  }
}

/** Has the just-spawned wrapper held, then lets it run (fd 3, see GATE). */
function release(child: ChildProcess, isolate: (pid: number) => void): Error | undefined {
  const gate = child.stdio[3] as NodeJS.WritableStream | null;
  try {
    if (child.pid) isolate(child.pid);
    gate?.end('go\n');
    return undefined;
  } catch (e) {
    gate?.end();
    return e as Error;
  }
}
