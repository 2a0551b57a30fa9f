/**
 * The launcher: the only place that forks a task. The task's first process is a small shell
 * wrapper, spawned in a process group of its own, that waits for the go on fd 3 until its
 * isolators hold it (its cgroup joined), gives the task a private /tmp and /dev/shm in its
 * sandbox, becomes the task's user, runs the command, and records its exit status in the
 * sandbox so that a restarted agent can still tell how it ended. An image task's wrapper runs
 * `runc run` instead (as root; runc makes the namespaces and becomes the task's user).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskSpec } from '@arbiter/contracts';
import type { BindMount } from './runtime/oci-spec';
import type { OsUser } from './users';

export const EXIT_STATUS_FILE = '.exit_status';
/** The task's private /tmp and /dev/shm, in its sandbox (so its disk counts them). */
export const PRIVATE_TMP = 'tmp';
export const PRIVATE_SHM = '.shm';
/** Where the agent's installation is staged in the sandbox on its way back under the private /tmp (empty once moved). */
const INSTALL_STAGE = '.install';
/** The agent's installation (the repository it runs from: its programs, libraries and node_modules). */
const AGENT_INSTALLATION = path.resolve(__dirname, '..', '..', '..', '..');

/** The installation when a private /tmp or /dev/shm would hide it, else undefined. */
export function hiddenByPrivateTmp(installation: string): string | undefined {
  return /^\/(tmp|dev\/shm)\/./.test(installation) ? installation : undefined;
}
/**
 * First the wrapper waits for the agent's go on fd 3, sent once the wrapper is in the task's
 * cgroup (so nothing the task starts runs outside it); no go (the agent died): it exits 125.
 * Then it runs the command in a subshell and records its status where a restarted agent can
 * read it. The wrapper catches SIGTERM with a no-op (a caught signal is reset to its default in
 * the subshell), so a task that handles or ignores SIGTERM decides for itself until SIGKILL.
 */
const GATE = `read -r go <&3; exec 3<&-; [ "$go" = go ] || exit 125;`;
const BODY = `cmd=$ARBITER_TASK_SHELL; unset ARBITER_TASK_SHELL; trap ':' TERM; ( eval "$cmd" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
const BODY_ARGV = `trap ':' TERM; ( "$@" ); code=$?; echo $code > "$ARBITER_SANDBOX/${EXIT_STATUS_FILE}"; exit $code`;
/**
 * With a private /tmp: the wrapper starts as root in a mount namespace of its own (`unshare`),
 * waits for the go, mounts the sandbox's tmp and .shm on /tmp and /dev/shm (seen by nobody
 * else; named relative to its working directory, the sandbox, which they may cover), then becomes the task's user (`setpriv`) and runs the body. Its arguments: the paths
 * of mount and setpriv (never looked up in the task's PATH), uid, gid, the groups option, the
 * body, the agent's installation to keep visible (or nothing), then the command's.
 *
 * An agent installed under /tmp or /dev/shm (a checkout there) would hide its own programs,
 * the default executor among them, from its executors and tasks: the installation is first
 * bound read-only in the sandbox (while /tmp is still the host's), then moved back to its path
 * once the private /tmp covers it.
 */
const MOUNTS =
  `{ [ -z "$ARBITER_EARLY_BINDS" ] || eval "$ARBITER_EARLY_BINDS"; } && unset ARBITER_EARLY_BINDS &&` +
  ` { [ -z "$i" ] || { mkdir -p ./${INSTALL_STAGE} && "$m" --no-canonicalize --bind -o ro "$i" ./${INSTALL_STAGE}; }; } &&` +
  ` "$m" --no-canonicalize --bind ./${PRIVATE_SHM} /dev/shm && "$m" --no-canonicalize --bind ./${PRIVATE_TMP} /tmp &&` +
  ` { [ -z "$i" ] || { mkdir -p "$i" && "$m" --no-canonicalize --move ./${INSTALL_STAGE} "$i"; }; } &&` +
  // A sandbox under /tmp or /dev/shm (a developer's work directory) is mounted back where it was.
  ` { case "$ARBITER_SANDBOX" in /tmp/*|/dev/shm/*) mkdir -p "$ARBITER_SANDBOX" && "$m" --no-canonicalize --rbind . "$ARBITER_SANDBOX";; esac; }` +
  ` || { echo 'arbiter: could not give the task a private /tmp' >&2; exit 125; };`;
const SWITCH = `m=$1 sp=$2 u=$3 g=$4 gs=$5 body=$6 i=$7; shift 7; ${MOUNTS} if [ -n "$ARBITER_BINDS" ]; then eval "$ARBITER_BINDS" || { echo 'arbiter: could not mount the volumes' >&2; exit 125; }; fi; unset ARBITER_BINDS; exec "$sp" --reuid="$u" --regid="$g" "$gs" -- /bin/sh -c "$body" arbiter-task "$@"`;
const NAMESPACED = `${GATE} ${SWITCH}`;
/**
 * With a PID namespace too (`namespaces/pid`): after the go, the wrapper re-enters itself through
 * `unshare --pid --fork --mount-proc` (so the namespace's first process is forked inside the
 * task's cgroup), and the task sees only its own processes.
 */
const PID_NAMESPACED = `${GATE} exec "$ARBITER_UNSHARE" --pid --fork --mount-proc --propagation private -- /bin/sh -c 'unset ARBITER_UNSHARE; ${SWITCH.replace(/'/g, `'"'"'`)}' arbiter-task "$@"`;

/** The tools a private /tmp needs (absolute paths, see tools.ts). */
export interface NamespaceTools {
  unshare: string;
  mount: string;
  setpriv: string;
}
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
  /** How the task gets a /tmp of its own: a mount namespace with these tools (root), else TMPDIR in its sandbox. */
  namespace?: NamespaceTools;
  /** The agent's installation, kept visible read-only under a private /tmp (default: AGENT_INSTALLATION). */
  installation?: string;
  /** What its isolators add to its environment, over the spec's (its GPUs, say). */
  env?: Record<string, string>;
  /** With `namespace`: a PID namespace of its own too (namespaces/pid). */
  pidNamespace?: boolean;
  /** With `namespace`: its volumes, bind-mounted in its mount namespace before it runs. */
  binds?: BindMount[];
  /** An image task: the OCI runtime's command line, run as root by the wrapper (runc switches to the user). */
  runtime?: string[];
}

/**
 * A forked task: `isolationError` when it could not be isolated (let go to end at once),
 * `started` for an image task (resolves once the runtime has started its process, see runc.ts).
 */
export interface Launched {
  child: ChildProcess;
  isolationError?: Error;
  started?: Promise<boolean>;
}

/** A launch that failed before the task could run (the message says at which step). */
export class LaunchError extends Error {}

/** Exactly the spec's environment and these (documented in docs/security.md). */
function taskEnv({ frameworkId, spec, sandbox, user, env }: LaunchRequest): NodeJS.ProcessEnv {
  return {
    ...(spec.env ?? {}),
    ...(env ?? {}),
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

/** What to spawn for the request (and as whom, when that is the spawn's to do); `env` gains what the wrapper reads. */
export function commandLine(req: LaunchRequest, env: NodeJS.ProcessEnv): { file: string; args: string[]; asUser: boolean } {
  // runc runs the container (as the task's user) and the wrapper records its status.
  if (req.runtime) return { file: '/bin/sh', args: ['-c', `${GATE} ${BODY_ARGV}`, 'arbiter-task', ...req.runtime], asUser: false };
  const command = req.spec.command;
  if (!command) throw new Error(`task ${req.spec.taskId} has no command to run`);
  const body = 'shell' in command ? BODY : BODY_ARGV;
  const argv = 'shell' in command ? [] : [command.value, ...(command.arguments ?? [])];
  if ('shell' in command) env.ARBITER_TASK_SHELL = command.shell;
  const tools = req.namespace;
  if (!tools) {
    env.TMPDIR = path.join(req.sandbox, PRIVATE_TMP);
    return { file: '/bin/sh', args: ['-c', `${GATE} ${body}`, 'arbiter-task', ...argv], asUser: true };
  }
  const { uid, gid, gids } = req.user;
  const groups = gids.filter((g) => g !== gid);
  const gs = groups.length ? `--groups=${[gid, ...groups].join(',')}` : '--clear-groups';
  const late = req.binds?.filter((b) => !b.early) ?? [];
  const early = req.binds?.filter((b) => b.early) ?? [];
  if (late.length) env.ARBITER_BINDS = bindScript(late);
  if (early.length) env.ARBITER_EARLY_BINDS = bindScript(early);
  if (req.pidNamespace) env.ARBITER_UNSHARE = tools.unshare;
  const script = req.pidNamespace ? PID_NAMESPACED : NAMESPACED;
  const args = ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'arbiter-task'];
  const installation = hiddenByPrivateTmp(req.installation ?? AGENT_INSTALLATION) ?? '';
  args.push(tools.mount, tools.setpriv, String(uid), String(gid), gs, body, installation);
  return { file: tools.unshare, args: [...args, ...argv], asUser: false };
}

const quote = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;

/** The shell commands that bind the volumes (run by the wrapper as root, `$m` is mount); read-only ones remounted so. */
function bindScript(binds: BindMount[]): string {
  return binds
    .map((b) => {
      const [src, dst] = [quote(b.source), quote(b.destination)];
      // Never through a link (one made since the agent checked the path).
      const mk = `[ ! -L ${dst} ] && { [ -e ${dst} ] || { [ -d ${src} ] && mkdir -p ${dst}; } || touch ${dst}; }`;
      const ro = b.readOnly ? ` && "$m" --no-canonicalize -o remount,bind,ro ${dst}` : '';
      return `${mk} && "$m" --no-canonicalize --bind ${src} ${dst}${ro}`;
    })
    .join(' && ');
}

/**
 * Forks the task with `stdout` and `stderr` files in its sandbox, has `isolate` hold its first
 * process, then lets it run. Throws LaunchError when it could not start; `isolationError` says
 * when it started but could not be isolated (it is let go without running the command).
 */
export function launch(req: LaunchRequest, isolate: (pid: number) => void): Launched {
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
  const { file, args, asUser } = commandLine(req, env);
  try {
    const child = spawn(file, args, {
      cwd: req.sandbox,
      env,
      stdio: ['ignore', out, err, 'pipe'],
      detached: true,
      ...(req.switchUser && asUser ? { uid: req.user.uid, gid: req.user.gid } : {}),
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
  // A wrapper killed before it read the go resets the pipe: that is its end, told by its exit, never the agent's.
  gate?.on('error', () => undefined);
  try {
    if (child.pid) isolate(child.pid);
    gate?.end('go\n');
    return undefined;
  } catch (e) {
    gate?.end();
    return e as Error;
  }
}
