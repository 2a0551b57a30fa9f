/**
 * Mesos's ContainerInfo in Arbiter's terms, with no I/O: a task's or an executor's container as
 * a ContainerSpec, and back in Mesos's shape (for /master/state, and the TaskInfo the agent hands
 * an executor; the agent reads it back from a nested container's launch). Both of Mesos's
 * types run through the agent's one containerizer: MESOS with a Docker image in `mesos.image`,
 * DOCKER with `docker.image`, and MESOS without an image (Spark's shape) a plain isolated process.
 * What Arbiter cannot honour is refused by name (UNSUPPORTED); what frameworks always send and
 * changes nothing here (an empty `linux_info`, `docker.network: HOST`, `privileged: false`) is
 * accepted. docs/mesos-compat.md lists every field.
 */
import type { MesosContainerInfo } from './mesos-container';
import type { ContainerSpec, Volume } from './task-parts';

type MesosVolume = NonNullable<MesosContainerInfo['volumes']>[number];

/** The errors a refusal throws: the control plane's protocol errors, the agent API's HTTP ones. */
interface ContainerCodecErrors {
  /** A field that names a feature Arbiter does not have (`${what} is not supported: ${why}`). */
  unsupported: (what: string, why: string) => Error;
  /** A field that is malformed. */
  invalid: (message: string) => Error;
}

/**
 * Whether a field the codec refuses asks for anything: absent, an empty message (`{}` in JSON,
 * no bytes in protobuf) or an empty list asks for nothing, and is accepted.
 */
function given(v: unknown): boolean {
  if (v === undefined || v === '' || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** Fields that name a feature Arbiter does not have, with why. */
const REFUSED: Array<[keyof MesosContainerInfo, string]> = [
  ['network_infos', 'tasks share the host network (no CNI networks); use port mappings'],
  ['rlimit_info', 'Arbiter sets no resource limits (rlimits) per task'],
  ['tty_info', 'Arbiter attaches no TTY to a task'],
];

/**
 * `linux_info`: only `share_pid_namespace` (a task of a group sharing its executor's PID
 * namespace); capabilities, seccomp, other namespaces are refused.
 */
function linuxOf(l: unknown, at: string, { unsupported, invalid }: ContainerCodecErrors): ContainerSpec['linux'] {
  if (!given(l)) return undefined;
  if (typeof l !== 'object' || Array.isArray(l)) throw invalid(`${at}.linux_info must be a LinuxInfo`);
  const { share_pid_namespace: share, ...rest } = l as Record<string, unknown>;
  const other = Object.keys(rest).find((k) => given(rest[k]));
  if (other)
    throw unsupported(
      `${at}.linux_info`,
      `Arbiter takes only share_pid_namespace there (not ${other}): no Linux capabilities, seccomp profiles or other shared namespaces per task`,
    );
  if (share !== undefined && typeof share !== 'boolean') throw invalid(`${at}.linux_info.share_pid_namespace must be a boolean`);
  return share ? { sharePidNamespace: true } : undefined;
}

/** A ContainerInfo (of a TaskInfo or an ExecutorInfo, named by `where`) as Arbiter's ContainerSpec. */
export function containerOf(c: MesosContainerInfo, where: string, errors: ContainerCodecErrors): ContainerSpec {
  const { unsupported, invalid } = errors;
  const at = `${where}: container`;
  for (const [field, why] of REFUSED) if (given(c[field])) throw unsupported(`${at}.${field}`, why);
  const volumes = (c.volumes ?? []).map((v, i) => volumeOf(v, `${at}.volumes[${i}]`, errors));
  const linux = linuxOf(c.linux_info, at, errors);
  const common = {
    ...(volumes.length ? { volumes } : {}),
    ...(c.hostname !== undefined ? { hostname: c.hostname } : {}),
    ...(linux ? { linux } : {}),
  };
  if (c.type === 'MESOS') {
    if (c.docker !== undefined)
      throw invalid(`${at}.docker is for containers of type DOCKER; a MESOS container names its image in mesos.image`);
    const image = c.mesos?.image;
    if (image === undefined) return { type: 'MESOS', ...common };
    if (image.type === 'APPC' || given(image.appc))
      throw unsupported(`${at}.mesos.image of type APPC`, 'Arbiter runs Docker (OCI) images only');
    if (image.docker === undefined) throw invalid(`${at}.mesos.image of type DOCKER needs docker.name`);
    if (given(image.docker.credential) || given(image.docker.config))
      throw unsupported(
        `${at}.mesos.image.docker.credential and config`,
        "registry credentials are the agent's configuration (docs/containers.md)",
      );
    // `cached: false` is Mesos's force pull for MESOS containers.
    return { type: 'MESOS', image: { name: image.docker.name, ...(image.cached === false ? { forcePull: true } : {}) }, ...common };
  }
  const d = c.docker;
  if (d === undefined) throw invalid(`${at}.docker is required for a container of type DOCKER`);
  if (given(c.mesos)) throw invalid(`${at}.mesos is for containers of type MESOS`);
  if (d.network === 'NONE' || d.network === 'USER')
    throw unsupported(`${at}.docker.network ${d.network}`, 'containers share the host network (HOST; BRIDGE for port mappings)');
  if (d.privileged) throw unsupported(`${at}.docker.privileged`, 'Arbiter runs no privileged containers');
  if (given(d.parameters)) throw unsupported(`${at}.docker.parameters`, 'there is no Docker daemon to pass `docker run` options to');
  if (given(d.volume_driver)) throw unsupported(`${at}.docker.volume_driver`, 'Arbiter has no Docker volume drivers');
  const portMappings = (d.port_mappings ?? []).map((m, i): NonNullable<ContainerSpec['portMappings']>[number] => {
    const protocol = (m.protocol ?? 'tcp').toLowerCase();
    if (protocol !== 'tcp' && protocol !== 'udp')
      throw invalid(`${at}.docker.port_mappings[${i}].protocol must be tcp or udp, not '${m.protocol ?? ''}'`);
    return { hostPort: m.host_port, containerPort: m.container_port, protocol };
  });
  return {
    type: 'DOCKER',
    image: { name: d.image, ...(d.force_pull_image ? { forcePull: true } : {}) },
    ...(portMappings.length ? { portMappings } : {}),
    ...common,
  };
}

/** A Mesos Volume: a `source` (HOST_PATH, SANDBOX_PATH), or the deprecated `host_path` (absolute: the host's; relative: the sandbox's). */
function volumeOf(v: MesosVolume, at: string, { unsupported, invalid }: ContainerCodecErrors): Volume {
  if (given(v.image)) throw unsupported(`${at}.image`, 'Arbiter mounts no images as volumes');
  const mode = v.mode;
  const containerPath = v.container_path;
  const s = v.source;
  if (s !== undefined) {
    if (v.host_path !== undefined) throw invalid(`${at}: give a source or a host_path, not both`);
    for (const [field, why] of [
      ['docker_volume', 'Arbiter has no Docker volume drivers'],
      ['secret', 'Arbiter has no secrets store'],
      ['csi_volume', 'Arbiter has no CSI plugins'],
    ] as const)
      if (given(s[field])) throw unsupported(`${at}.source.${field}`, why);
    switch (s.type) {
      case 'HOST_PATH':
        if (s.host_path === undefined) throw invalid(`${at}.source of type HOST_PATH needs host_path.path`);
        if (given(s.host_path.mount_propagation))
          throw unsupported(`${at}.source.host_path.mount_propagation`, 'mounts are private to the container');
        return { containerPath, mode, source: { type: 'HOST_PATH', path: s.host_path.path } };
      case 'SANDBOX_PATH':
        if (s.sandbox_path === undefined) throw invalid(`${at}.source of type SANDBOX_PATH needs sandbox_path.path`);
        return {
          containerPath,
          mode,
          source: { type: 'SANDBOX_PATH', sandboxType: s.sandbox_path.type === 'PARENT' ? 'PARENT' : 'SELF', path: s.sandbox_path.path },
        };
      default:
        throw unsupported(`${at}.source of type ${s.type ?? 'UNKNOWN'}`, 'volumes are HOST_PATH or SANDBOX_PATH');
    }
  }
  if (v.host_path === undefined || v.host_path === '') throw invalid(`${at}: a volume needs a source or a host_path`);
  return {
    containerPath,
    mode,
    source: v.host_path.startsWith('/')
      ? { type: 'HOST_PATH', path: v.host_path }
      : { type: 'SANDBOX_PATH', sandboxType: 'SELF', path: v.host_path },
  };
}

/** A ContainerSpec as stored and shown (its volumes' sources read loosely). */
type ContainerView = Omit<ContainerSpec, 'volumes'> & {
  volumes?: Array<{ containerPath: string; mode: string; source: { type: string; path: string; sandboxType?: string } }>;
};

/** Arbiter's ContainerSpec in Mesos's ContainerInfo shape (as /master/state shows a task's container). */
export function toMesosContainer(c: ContainerView): Record<string, unknown> {
  const volumes = (c.volumes ?? []).map((v) => ({
    mode: v.mode,
    container_path: v.containerPath,
    source:
      v.source.type === 'HOST_PATH'
        ? { type: 'HOST_PATH', host_path: { path: v.source.path } }
        : { type: 'SANDBOX_PATH', sandbox_path: { type: v.source.sandboxType ?? 'SELF', path: v.source.path } },
  }));
  const out: Record<string, unknown> = { type: c.type, ...(volumes.length ? { volumes } : {}) };
  if (c.hostname !== undefined) out.hostname = c.hostname;
  if (c.linux?.sharePidNamespace) out.linux_info = { share_pid_namespace: true };
  if (c.type === 'DOCKER' && c.image)
    out.docker = {
      image: c.image.name,
      network: c.portMappings?.length ? 'BRIDGE' : 'HOST',
      ...(c.portMappings?.length
        ? { port_mappings: c.portMappings.map((m) => ({ host_port: m.hostPort, container_port: m.containerPort, protocol: m.protocol })) }
        : {}),
      ...(c.image.forcePull ? { force_pull_image: true } : {}),
    };
  else if (c.image) out.mesos = { image: { type: 'DOCKER', docker: { name: c.image.name }, cached: !c.image.forcePull } };
  return out;
}
