/**
 * The OCI runtime configuration (config.json) of an image task, written as an object: what
 * `runc spec` generates by default, with the task's process, user, mounts and namespaces.
 * PID (unless it joins its executor's), mount, IPC and UTS namespaces of its own; the host's
 * network (Mesos's default).
 */
import type { Command } from '@arbiter/contracts';
import type { ImageConfig } from '../provisioner/image';

/** Where the task's sandbox appears in its container (Mesos's MESOS_SANDBOX). */
export const CONTAINER_SANDBOX = '/mnt/mesos/sandbox';
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A bind mount into the container (a volume, or the sandbox). */
export interface BindMount {
  source: string;
  destination: string;
  readOnly: boolean;
  /**
   * A plain task's mount made before its private /tmp covers the host's (a persistent volume,
   * whose directory may be under /tmp): its destination is in the sandbox, carried along when
   * the sandbox is mounted back.
   */
  early?: boolean;
}

export interface OciInput {
  /** The container's root filesystem (its writable layer over the image). */
  rootfs: string;
  image: ImageConfig;
  command?: Command;
  /** The task's own environment (it wins over the image's). */
  env: Record<string, string>;
  uid: number;
  gid: number;
  /** Supplementary groups of the task's user. */
  gids: number[];
  hostname?: string;
  /** Relative: under the task's cgroup (see runc.ts). */
  cgroupsPath: string;
  mounts: BindMount[];
  /** Device nodes the container may use besides runc's defaults (its GPUs and the driver's control nodes). */
  devices?: Array<{ path: string; type: 'c'; major: number; minor: number }>;
  /** A file runc's poststart hook creates once the container's process has started. */
  startedMark?: string;
  /** A PID namespace to join (`/proc/<pid>/ns/pid`: a nested container sharing its executor's), instead of a new one. */
  pidNamespace?: string;
}

/**
 * The poststart hook that marks a container started. runc writes the container's state to a
 * hook's stdin, and passes every signal it receives on to the container's process: a hook that
 * exits before that write leaves runc a broken pipe, and its SIGPIPE killed the task's process
 * before it ran (status 141, seen under load). So the hook reads its stdin to the end first.
 */
const STARTED_HOOK = 'while read -r _; do :; done; : > "$1"';

/** Thrown when an image task has nothing to run (no command, and the image names none). */
export class NoCommand extends Error {}

/**
 * What the container runs, by Mesos's rules: a shell command is `/bin/sh -c <cmd>` (the image's
 * entrypoint and cmd ignored); a plain command runs after the image's entrypoint if it has
 * one (its cmd ignored); no command: the entrypoint, then the cmd.
 */
export function containerArgs(command: Command | undefined, image: ImageConfig): string[] {
  const entrypoint = image.entrypoint ?? [];
  if (command && 'shell' in command) return ['/bin/sh', '-c', command.shell];
  const args = command ? [...entrypoint, command.value, ...(command.arguments ?? [])] : [...entrypoint, ...(image.cmd ?? [])];
  if (args.length === 0) throw new NoCommand('the task has no command and its image names no entrypoint or cmd');
  return args;
}

/** The image's environment, then the sandbox's, then the task's own (each later one wins). */
export function containerEnv(image: ImageConfig, task: Record<string, string>): string[] {
  const env = new Map<string, string>([['PATH', DEFAULT_PATH]]);
  for (const entry of image.env) {
    const at = entry.indexOf('=');
    if (at > 0) env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  env.set('MESOS_SANDBOX', CONTAINER_SANDBOX);
  env.set('HOME', CONTAINER_SANDBOX);
  for (const [k, v] of Object.entries(task)) env.set(k, v);
  return [...env].map(([k, v]) => `${k}=${v}`);
}

const NO_EXEC = ['nosuid', 'noexec', 'nodev'];

export function ociConfig(input: OciInput): Record<string, unknown> {
  const caps = ['CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE'];
  // A task running as root in its container keeps runc's default capabilities; any other user none.
  const capabilities =
    input.uid === 0
      ? { bounding: caps, effective: caps, permitted: caps, ambient: caps }
      : { bounding: caps, effective: [], permitted: [] };
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: input.uid, gid: input.gid, additionalGids: input.gids.filter((g) => g !== input.gid) },
      args: containerArgs(input.command, input.image),
      env: containerEnv(input.image, input.env),
      cwd: input.image.workingDir || CONTAINER_SANDBOX,
      capabilities,
      noNewPrivileges: true,
    },
    root: { path: input.rootfs, readonly: false },
    hostname: input.hostname ?? 'arbiter',
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc' },
      { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
      {
        destination: '/dev/pts',
        type: 'devpts',
        source: 'devpts',
        options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'],
      },
      // /dev/shm is memory: it counts against the task's memory limit, as a plain task's does.
      { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: [...NO_EXEC, 'mode=1777', 'size=65536k'] },
      { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: NO_EXEC },
      { destination: '/sys', type: 'sysfs', source: 'sysfs', options: [...NO_EXEC, 'ro'] },
      { destination: '/sys/fs/cgroup', type: 'cgroup', source: 'cgroup', options: [...NO_EXEC, 'relatime', 'ro'] },
      // The host's resolver and name, as with host networking in Docker.
      ...['/etc/resolv.conf', '/etc/hosts']
        .filter((f) => input.mounts.every((m) => m.destination !== f))
        .map((f) => ({ destination: f, type: 'bind', source: f, options: ['rbind', 'ro'] })),
      ...input.mounts.map((m) => ({
        destination: m.destination,
        type: 'bind',
        source: m.source,
        options: ['rbind', 'rprivate', m.readOnly ? 'ro' : 'rw'],
      })),
    ],
    ...(input.startedMark
      ? { hooks: { poststart: [{ path: '/bin/sh', args: ['sh', '-c', STARTED_HOOK, 'sh', input.startedMark] }] } }
      : {}),
    linux: {
      cgroupsPath: input.cgroupsPath,
      devices: (input.devices ?? []).map((d) => ({ ...d, fileMode: 0o666, uid: 0, gid: 0 })),
      resources: {
        devices: [
          { allow: false, access: 'rwm' },
          ...(input.devices ?? []).map((d) => ({ allow: true, type: d.type, major: d.major, minor: d.minor, access: 'rwm' })),
        ],
      },
      namespaces: [
        { type: 'pid', ...(input.pidNamespace ? { path: input.pidNamespace } : {}) },
        { type: 'ipc' },
        { type: 'uts' },
        { type: 'mount' },
      ],
      maskedPaths: [
        '/proc/acpi',
        '/proc/asound',
        '/proc/kcore',
        '/proc/keys',
        '/proc/latency_stats',
        '/proc/timer_list',
        '/proc/timer_stats',
        '/proc/sched_debug',
        '/sys/firmware',
        '/proc/scsi',
      ],
      readonlyPaths: ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}
