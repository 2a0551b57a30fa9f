/**
 * The runc command line of a container over a provisioned image: its config.json written from
 * the task's spec (the image's and the task's environment, its user, its sandbox at
 * /mnt/mesos/sandbox, its volumes and GPUs), under the cgroups its first process joins. Used for
 * image tasks and for the nested containers of a task group alike (../containerizer.ts).
 */
import type { NvidiaGpu } from '../isolators/nvidia';
import { nvidiaContainerMounts } from '../isolators/nvidia';
import { launch, type Launched, type LaunchRequest, TASK_PATH } from '../launcher';
import type { ProvisionedImage } from '../provisioner/image';
import { type BindMount, CONTAINER_SANDBOX } from './oci-spec';
import type { Runc } from './runc';

interface ImageLaunch {
  /** The container's name (its bundle, and its cgroups under its first process's: `arbiter-<name>`). */
  name: string;
  image: ProvisionedImage;
  binds: BindMount[];
  /** The GPUs it holds (their devices and the driver mounted in). */
  gpus?: NvidiaGpu[];
  /** A PID namespace to join (`/proc/<pid>/ns/pid`) instead of one of its own. */
  pidNamespace?: string;
}

/** The launch request of a container: its task, user, sandbox (mounted at /mnt/mesos/sandbox) and the isolators' environment. */
type Request = Omit<LaunchRequest, 'runtime'>;

/**
 * Launches the container through the launcher (runc run by the task's wrapper, held by
 * `isolate` first); `started` resolves once runc has started its process.
 */
export function launchImage(runtime: Runc, req: Request, l: ImageLaunch, isolate: (pid: number) => void): Launched {
  const launched = launch({ ...req, runtime: imageCommand(runtime, req, l) }, isolate);
  const exited = new Promise((resolve) => launched.child.once('exit', resolve).once('error', resolve));
  return { ...launched, started: runtime.whenStarted(l.name, exited) };
}

/** Writes the container's config.json and returns the command line that runs it (see Runc.create). */
function imageCommand(runtime: Runc, req: Request, l: ImageLaunch): string[] {
  const { spec, user } = req;
  const nvidia = l.gpus?.length ? nvidiaContainerMounts(l.gpus) : undefined;
  const search = (name: string, dir: string) => ({
    [name]: [dir, spec.env?.[name] ?? (name === 'PATH' ? TASK_PATH : '')].filter(Boolean).join(':'),
  });
  return runtime.create(l.name, {
    image: l.image.config,
    command: spec.command,
    // What its isolators add (its GPUs) over the spec's, as for plain tasks.
    env: {
      ...spec.env,
      ...req.env,
      ...(nvidia ? { ...search('PATH', nvidia.binDir), ...search('LD_LIBRARY_PATH', nvidia.libDir) } : {}),
      ARBITER_TASK_ID: spec.taskId,
      ARBITER_FRAMEWORK_ID: req.frameworkId,
      ARBITER_SANDBOX: CONTAINER_SANDBOX,
    },
    ...(nvidia ? { devices: nvidia.devices } : {}),
    uid: user.uid,
    gid: user.gid,
    gids: user.gids,
    hostname: spec.container?.hostname,
    // Under the cgroups its first process joined (runc is started inside them): `arbiter-<name>` beside nothing else.
    cgroupsPath: `arbiter-${l.name}`,
    mounts: [{ source: req.sandbox, destination: CONTAINER_SANDBOX, readOnly: false }, ...l.binds, ...(nvidia?.mounts ?? [])],
    ...(l.pidNamespace ? { pidNamespace: l.pidNamespace } : {}),
  });
}
