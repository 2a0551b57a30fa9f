/**
 * Mesos's ContainerInfo (mesos.proto) in its JSON mapping, as frameworks send it with a TaskInfo
 * or an ExecutorInfo (see mesos.ts for the mapping's rules).
 */
import { z } from 'zod';

const text = (max = 4096) => z.string().max(max);

/**
 * Mesos's ContainerInfo (mesos.proto), as frameworks send it: type MESOS (an image in
 * `mesos.image`, or none: a plain isolated process) or DOCKER (`docker.image`), volumes, port
 * mappings, hostname. What Arbiter cannot honour (APPC images, named networks, Linux
 * capabilities, rlimits, TTYs, Docker parameters...) is accepted here and refused by name by the
 * control plane (docs/mesos-compat.md).
 */
const MesosImage = z
  .object({
    type: z.enum(['APPC', 'DOCKER']),
    appc: z.unknown().optional(),
    docker: z
      .object({ name: z.string().min(1).max(1024), credential: z.unknown().optional(), config: z.unknown().optional() })
      .strict()
      .optional(),
    cached: z.boolean().optional(),
  })
  .strict();

const MesosVolume = z
  .object({
    mode: z.enum(['RW', 'RO']),
    container_path: z.string().min(1).max(4096),
    host_path: text().optional(),
    image: z.unknown().optional(),
    source: z
      .object({
        type: z.enum(['UNKNOWN', 'DOCKER_VOLUME', 'HOST_PATH', 'SANDBOX_PATH', 'SECRET', 'CSI_VOLUME']).optional(),
        docker_volume: z.unknown().optional(),
        host_path: z
          .object({ path: z.string().min(1).max(4096), mount_propagation: z.unknown().optional() })
          .strict()
          .optional(),
        sandbox_path: z
          .object({ type: z.enum(['UNKNOWN', 'SELF', 'PARENT']).optional(), path: z.string().min(1).max(4096) })
          .strict()
          .optional(),
        secret: z.unknown().optional(),
        csi_volume: z.unknown().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const MesosContainerInfo = z
  .object({
    type: z.enum(['DOCKER', 'MESOS']),
    volumes: z.array(MesosVolume).max(100).optional(),
    hostname: text(253).optional(),
    docker: z
      .object({
        image: z.string().min(1).max(1024),
        network: z.enum(['HOST', 'BRIDGE', 'NONE', 'USER']).optional(),
        port_mappings: z
          .array(
            z
              .object({
                host_port: z.number().int().min(0).max(65_535),
                container_port: z.number().int().min(0).max(65_535),
                protocol: text(32).optional(),
              })
              .strict(),
          )
          .max(100)
          .optional(),
        privileged: z.boolean().optional(),
        parameters: z
          .array(z.object({ key: text(255), value: text() }).strict())
          .max(100)
          .optional(),
        force_pull_image: z.boolean().optional(),
        volume_driver: text(255).optional(),
      })
      .strict()
      .optional(),
    mesos: z.object({ image: MesosImage.optional() }).strict().optional(),
    network_infos: z.array(z.unknown()).max(100).optional(),
    linux_info: z.unknown().optional(),
    rlimit_info: z.unknown().optional(),
    tty_info: z.unknown().optional(),
  })
  .strict();
export type MesosContainerInfo = z.infer<typeof MesosContainerInfo>;
