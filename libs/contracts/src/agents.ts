/**
 * The /agents socket.io namespace: an agent registers its machine, heartbeats, runs and kills
 * the tasks it is told to and reports their states. Connect with `auth: { token }`.
 *
 *   agent -> control plane (each acknowledged with a Reply):
 *     'register'      RegisterAgent        -> { agentId, heartbeatIntervalSeconds }
 *     'heartbeat'     AgentHeartbeat       -> {}  ({ health? }: what keeps it from running tasks)
 *     'status'        StatusUpdate         -> {}  (after it is persisted; the agent keeps the
 *                                                  update on disk until then and resends it)
 *   control plane -> agent (acknowledged with a Reply):
 *     'launch'        LaunchTask           -> {}  (then 'status' STARTING, RUNNING, ...)
 *     'kill'          KillTask             -> {}
 *     'filesBrowse'   FilesBrowse          -> FilesBrowseReply  (./files.ts)
 *     'filesRead'     FilesRead            -> FilesReadReply
 *     'createVolume'  CreateVolume         -> CreateVolumeReply  (./volumes.ts)
 *     'destroyVolume' DestroyVolume        -> {}
 *   and the executor messages of ./executors.ts.
 */
import { z } from 'zod';
import { Id, type Reply, Resources, type StatusUpdate, TaskSpec, TaskState } from './common';
import {
  type AgentExecutorCalls,
  type FrameworkMessage,
  type LaunchGroup,
  RunningExecutorReport,
  type ShutdownExecutor,
} from './executors';
import type { CreateVolume, CreateVolumeReply, DestroyVolume } from './volumes';
import type { FilesBrowse, FilesBrowseReply, FilesRead, FilesReadReply } from './files';

export const AGENTS_NAMESPACE = '/agents';

const RunningTaskReport = z.object({ frameworkId: Id, taskId: Id, state: TaskState, resources: Resources }).strict();
type RunningTaskReport = z.infer<typeof RunningTaskReport>;

/**
 * What an agent enforces for its tasks: `cgroups-v1`/`cgroups-v2` with the controllers it
 * uses (memory, cpu, pids), or `posix` (process groups and polling, no hard limits); the OS
 * user tasks run as when their spec names none; whether disk use is measured.
 */
const Isolation = z
  .object({
    mode: z.enum(['cgroups-v1', 'cgroups-v2', 'posix']),
    controllers: z
      .array(z.enum(['memory', 'cpu', 'pids']))
      .max(3)
      .default([]),
    taskUser: z.string().max(32).optional(),
    diskQuota: z.boolean().default(false),
  })
  .strict();
type Isolation = z.input<typeof Isolation>;

/**
 * What the agent can contain tasks with, reported at registration and shown to operators: its
 * containerizers (`mesos`: plain processes and OCI images through one containerizer), its
 * isolators (Mesos's names: `cgroups/mem`, `filesystem/linux`, `namespaces/pid`, `network/ports`,
 * `gpu/nvidia`, ...), the OCI runtime and image tools with their versions, and its GPUs. No
 * runtime: image tasks are refused for this agent, with `problem` saying why.
 */
export const AgentCapabilities = z
  .object({
    containerizers: z.array(z.string().min(1).max(64)).max(16).default([]),
    isolators: z.array(z.string().min(1).max(64)).max(64).default([]),
    /** The OCI runtime that runs images (runc), when there is one. */
    runtime: z
      .object({ name: z.string().min(1).max(64), version: z.string().max(200) })
      .strict()
      .optional(),
    /** External tools found at start and their versions (skopeo, umoci, ...). */
    tools: z.record(z.string().min(1).max(64), z.string().max(200)).default({}),
    gpus: z
      .array(
        z.object({ index: z.number().int().min(0).max(1024), model: z.string().max(200), uuid: z.string().max(200).optional() }).strict(),
      )
      .max(1024)
      .default([]),
    /** Why GPUs are confined by the environment alone (no cgroups v1 devices controller), when they are. */
    gpusProblem: z.string().max(1000).optional(),
    /** Why images cannot run here (no runtime, no image tools), when they cannot. */
    imagesProblem: z.string().max(1000).optional(),
  })
  .strict();
export type AgentCapabilities = z.input<typeof AgentCapabilities>;

/**
 * What keeps an agent from running new tasks, each with a stable code: its work directory is
 * below the free space it keeps for its journal and checkpoints (DISK_RESERVE_IN_USE: launches
 * are refused, DROPPED), its journal cannot be written (JOURNAL_UNWRITABLE), its work directory
 * cannot be read (WORK_DIR_UNREADABLE).
 */
export const AGENT_PROBLEM_CODES = ['DISK_RESERVE_IN_USE', 'JOURNAL_UNWRITABLE', 'WORK_DIR_UNREADABLE'] as const;

/**
 * The disk that holds the agent's sandboxes, as its garbage collection sees it: its size, what is
 * free (bytes anyone may still write), and the share the GC keeps free (at that headroom it
 * removes ended tasks' sandboxes at once). Rounded by the agent (to a thousandth of the disk), so
 * that it changes only when the disk does.
 */
export const SandboxDisk = z
  .object({
    totalBytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    freeBytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    gcHeadroom: z.number().min(0).max(1),
  })
  .strict()
  .refine((d) => d.freeBytes <= d.totalBytes, { message: 'freeBytes cannot be over totalBytes', path: ['freeBytes'] });
export type SandboxDisk = z.infer<typeof SandboxDisk>;

export const AgentHealth = z
  .object({
    ok: z.boolean(),
    problems: z
      .array(z.object({ code: z.enum(AGENT_PROBLEM_CODES), message: z.string().max(1000) }).strict())
      .max(AGENT_PROBLEM_CODES.length),
    /** Its sandboxes' disk (absent: an older agent, or one that could not read it). */
    sandboxDisk: SandboxDisk.optional(),
  })
  .strict()
  .refine((h) => h.ok === (h.problems.length === 0), { message: 'ok must be true exactly when no problem is listed', path: ['ok'] });
export type AgentHealth = z.infer<typeof AgentHealth>;

/** A heartbeat: the agent is alive, and (when it says) how it is. */
export const AgentHeartbeat = z.object({ health: AgentHealth.optional() }).strict();
export type AgentHeartbeat = z.input<typeof AgentHeartbeat>;

export const RegisterAgent = z
  .object({
    /** The id the control plane gave on an earlier registration; absent on first start. */
    agentId: Id.optional(),
    hostname: z.string().min(1).max(253),
    /** host:port or URL where the agent can be reached (informational). */
    address: z.string().max(300).optional(),
    resources: Resources.min(1),
    attributes: z.record(z.string().min(1).max(128), z.union([z.string().max(1024), z.number()])).default({}),
    version: z.string().max(100).optional(),
    /** How the agent isolates tasks (shown to operators; Mesos's agent --isolation). */
    isolation: Isolation.optional(),
    /** Its containerizers, isolators, runtime, tools and GPUs (absent from older agents: plain processes only). */
    capabilities: AgentCapabilities.optional(),
    /** Tasks the agent is running now (re-registration after a reconnect or restart). */
    tasks: z.array(RunningTaskReport).max(100_000).default([]),
    /** Executors the agent is running now (re-registration); the control plane ends its record of any other. */
    executors: z.array(RunningExecutorReport).max(100_000).default([]),
    /** What keeps it from running new tasks, if anything (as in heartbeats). */
    health: AgentHealth.optional(),
  })
  .strict();
export type RegisterAgent = z.input<typeof RegisterAgent>;

/**
 * An agent's new total resources, sent while it runs (Mesos's UPDATE_SLAVE): it re-detected
 * them, was reconfigured, or its oversubscribed (revocable) resources changed. Attributes, when
 * given, replace the agent's. The total must still hold the agent's reservations.
 */
export const UpdateAgent = z
  .object({
    resources: Resources.min(1),
    attributes: z.record(z.string().min(1).max(128), z.union([z.string().max(1024), z.number()])).optional(),
  })
  .strict();
export type UpdateAgent = z.input<typeof UpdateAgent>;

export const RegisterAgentReply = z.object({ agentId: Id, heartbeatIntervalSeconds: z.number().positive() });
export type RegisterAgentReply = z.infer<typeof RegisterAgentReply>;

export const LaunchTask = z
  .object({
    frameworkId: Id,
    task: TaskSpec,
    /** Memory limit in bytes, from the task's `mem` (MB); the agent kills the task past it. */
    memLimitBytes: z.number().int().positive().optional(),
    /** Its framework checkpoints (Mesos's FrameworkInfo.checkpoint): its executor outlives an agent restart (absent: true). */
    checkpoint: z.boolean().optional(),
  })
  .strict();
export type LaunchTask = z.infer<typeof LaunchTask>;

export const KillTask = z
  .object({
    frameworkId: Id,
    taskId: Id,
    /** SIGTERM, then SIGKILL after this many seconds (default 5). */
    gracePeriodSeconds: z.number().nonnegative().max(3600).optional(),
  })
  .strict();
export type KillTask = z.infer<typeof KillTask>;

/** What the control plane sends an agent on /agents. */
export interface AgentEvents {
  launch: (m: LaunchTask, ack?: (r: Reply) => void) => void;
  kill: (m: KillTask, ack?: (r: Reply) => void) => void;
  launchGroup: (m: LaunchGroup, ack?: (r: Reply) => void) => void;
  shutdownExecutor: (m: ShutdownExecutor, ack?: (r: Reply) => void) => void;
  frameworkMessage: (m: FrameworkMessage, ack?: (r: Reply) => void) => void;
  filesBrowse: (m: FilesBrowse, ack: (r: Reply<FilesBrowseReply>) => void) => void;
  filesRead: (m: FilesRead, ack: (r: Reply<FilesReadReply>) => void) => void;
  createVolume: (m: CreateVolume, ack: (r: Reply<CreateVolumeReply>) => void) => void;
  destroyVolume: (m: DestroyVolume, ack: (r: Reply) => void) => void;
}

/** What an agent calls on /agents; the control plane acknowledges each call with a Reply. */
export interface AgentCalls extends AgentExecutorCalls {
  register: (m: RegisterAgent, ack?: (r: Reply<RegisterAgentReply>) => void) => void;
  heartbeat: (m: AgentHeartbeat, ack?: (r: Reply) => void) => void;
  status: (m: StatusUpdate, ack?: (r: Reply) => void) => void;
  update: (m: UpdateAgent, ack?: (r: Reply) => void) => void;
}
