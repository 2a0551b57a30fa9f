/**
 * The parts of a task's and an executor's spec beyond what they run and use: the command, the
 * artifacts fetched into the sandbox, health and general checks, and the container (image,
 * volumes, port mappings). Wire formats shared by the control plane, the agents and the SDK.
 */
import { z } from 'zod';

/** What a task runs: a shell line, or an executable with arguments. */
export const Command = z.union([
  z.object({ shell: z.string().min(1).max(65_536) }).strict(),
  z.object({ value: z.string().min(1).max(4096), arguments: z.array(z.string().max(65_536)).max(1000).optional() }).strict(),
]);
export type Command = z.infer<typeof Command>;

/**
 * An artifact fetched into the sandbox before the task or executor starts (Mesos's
 * CommandInfo.URI): http, https or file; `extract` unpacks archives (tar, tar.gz, tar.bz2,
 * tar.xz, zip), `executable` makes it runnable, `cache` keeps it in the agent's cache,
 * `outputFile` names it in the sandbox (relative, never escaping it).
 */
export const FetchUri = z
  .object({
    value: z.string().min(1).max(4096),
    executable: z.boolean().optional(),
    extract: z.boolean().optional(),
    cache: z.boolean().optional(),
    outputFile: z.string().min(1).max(4096).optional(),
  })
  .strict();
export type FetchUri = z.infer<typeof FetchUri>;

/** How a check reaches the task: a command run beside it (in its container), an HTTP GET, a TCP connect. */
const CheckProbe = z.discriminatedUnion('type', [
  z.object({ type: z.literal('COMMAND'), command: Command }).strict(),
  z
    .object({
      type: z.literal('HTTP'),
      port: z.number().int().min(1).max(65_535),
      path: z.string().max(4096).optional(),
      scheme: z.enum(['http', 'https']).optional(),
      /** HTTP statuses counted healthy (default 200-399). */
      statuses: z.array(z.number().int().min(100).max(599)).max(100).optional(),
    })
    .strict(),
  z.object({ type: z.literal('TCP'), port: z.number().int().min(1).max(65_535) }).strict(),
]);

const CheckTiming = {
  delaySeconds: z.number().nonnegative().max(86_400).optional(),
  intervalSeconds: z.number().positive().max(86_400).optional(),
  timeoutSeconds: z.number().positive().max(86_400).optional(),
};

/**
 * Mesos's HealthCheck: sets the task's `healthy`, reported in updates with
 * REASON_TASK_HEALTH_CHECK_STATUS_UPDATED; after `consecutiveFailures` (past the grace period)
 * the task is killed.
 */
export const HealthCheck = z
  .object({
    probe: CheckProbe,
    ...CheckTiming,
    gracePeriodSeconds: z.number().nonnegative().max(86_400).optional(),
    consecutiveFailures: z.number().int().positive().max(1000).optional(),
  })
  .strict();
export type HealthCheck = z.infer<typeof HealthCheck>;

/** Mesos's CheckInfo: a general check whose result is reported (`checkStatus`), never acted on. */
export const Check = z.object({ probe: CheckProbe, ...CheckTiming }).strict();
export type Check = z.infer<typeof Check>;

/** A general check's last result, in status updates (Mesos's CheckStatusInfo). */
export const CheckStatus = z
  .object({
    type: z.enum(['COMMAND', 'HTTP', 'TCP']),
    /** COMMAND: its exit code; HTTP: the status code; TCP: whether it connected. Absent: not known yet (or timed out). */
    exitCode: z.number().int().optional(),
    statusCode: z.number().int().optional(),
    succeeded: z.boolean().optional(),
  })
  .strict();
export type CheckStatus = z.infer<typeof CheckStatus>;

/**
 * A file or directory mounted into a task's container (Mesos's Volume): a host path (only where
 * the agent's configuration allows it), a path in the sandbox (SANDBOX_PATH: SELF, or PARENT for
 * a task group's shared sandbox), or, later, a persistent volume.
 */
export const Volume = z
  .object({
    /** Where it appears: absolute inside an image's root filesystem, or relative to the sandbox. */
    containerPath: z.string().min(1).max(4096),
    mode: z.enum(['RW', 'RO']).default('RW'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('HOST_PATH'), path: z.string().min(1).max(4096).startsWith('/') }).strict(),
      z
        .object({
          type: z.literal('SANDBOX_PATH'),
          sandboxType: z.enum(['SELF', 'PARENT']).default('SELF'),
          path: z.string().min(1).max(4096),
        })
        .strict(),
    ]),
  })
  .strict();
export type Volume = z.infer<typeof Volume>;

/**
 * A container image by Docker reference (`[registry/]repository[:tag][@sha256:digest]`, Docker
 * Hub when no registry is named); a digest pins it. `forcePull`: fetch the manifest again even
 * when the agent's store has the tag.
 */
export const ContainerImage = z
  .object({
    name: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[a-z0-9][a-z0-9._\-/:@]*$/i, 'a Docker image reference such as busybox, registry:5000/team/app:1.2 or app@sha256:...'),
    forcePull: z.boolean().optional(),
  })
  .strict();
export type ContainerImage = z.infer<typeof ContainerImage>;

/**
 * How a task or executor is contained (Mesos's ContainerInfo). MESOS and DOCKER both run through
 * the agent's one containerizer (no Docker daemon); `image` absent: a plain isolated process
 * (Spark's `ContainerInfo{type: MESOS}`). Port mappings (DOCKER) map offered host ports onto the
 * container's; host networking otherwise.
 */
export const ContainerSpec = z
  .object({
    type: z.enum(['MESOS', 'DOCKER']),
    image: ContainerImage.optional(),
    volumes: z.array(Volume).max(100).optional(),
    portMappings: z
      .array(
        z
          .object({
            hostPort: z.number().int().min(1).max(65_535),
            containerPort: z.number().int().min(1).max(65_535),
            protocol: z.enum(['tcp', 'udp']).default('tcp'),
          })
          .strict(),
      )
      .max(100)
      .optional(),
    hostname: z.string().min(1).max(253).optional(),
    /**
     * Mesos's LinuxInfo: `sharePidNamespace`, for a task of a group running in an image of its
     * own, shares its executor's PID namespace instead of having one of its own.
     */
    linux: z.object({ sharePidNamespace: z.boolean().optional() }).strict().optional(),
  })
  .strict()
  .refine((c) => c.type === 'MESOS' || c.image !== undefined, { message: 'a DOCKER container needs an image', path: ['image'] });
export type ContainerSpec = z.infer<typeof ContainerSpec>;
