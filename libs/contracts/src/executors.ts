/**
 * Executors on the wire between the control plane, agents and frameworks (the scheduler side;
 * the executor API itself is Mesos's v1 executor HTTP API, served by each agent).
 *
 *   control plane -> agent (/agents, acknowledged with a Reply):
 *     'launch'            LaunchTask (its task may name an `executor`: started on first use)
 *     'launchGroup'       LaunchGroup          -> {}  (the tasks run under one executor)
 *     'shutdownExecutor'  ShutdownExecutor     -> {}  (the scheduler's SHUTDOWN, teardown)
 *     'frameworkMessage'  FrameworkMessage     -> {}  (scheduler -> executor)
 *   agent -> control plane (/agents, acknowledged with a Reply):
 *     'executorExited'    ExecutorExited       -> {}  (its resources are freed; Mesos's ExitedExecutorMessage)
 *     'executorMessage'   FrameworkMessage     -> {}  (executor -> scheduler)
 *   framework -> control plane (/frameworks):
 *     'accept' with a LAUNCH_GROUP operation (LaunchGroupOperation)
 *     'shutdownExecutor'  { agentId, executorId }       -> {}
 *     'message'           { agentId, executorId, data } -> {}
 *   control plane -> framework (/frameworks events):
 *     'message'           { agentId, executorId, data }          (from an executor)
 *     'failure'           { agentId, executorId, status? }       (an executor ended: Mesos's FAILURE)
 */
import { z } from 'zod';
import { Bytes, ExecutorSpec, Id, type Reply, Resources, TaskSpec } from './common';

/** Tasks launched together under one executor (Mesos's LAUNCH_GROUP): they start and end as one. */
export const LaunchGroup = z
  .object({
    frameworkId: Id,
    executor: ExecutorSpec,
    tasks: z.array(TaskSpec).min(1).max(1000),
    /** Its framework checkpoints, as for LaunchTask (absent: true). */
    checkpoint: z.boolean().optional(),
  })
  .strict();
export type LaunchGroup = z.infer<typeof LaunchGroup>;

/** The SDK's LAUNCH_GROUP operation (an Accept's operation). */
export const LaunchGroupOperation = z
  .object({ type: z.literal('LAUNCH_GROUP'), executor: ExecutorSpec, tasks: z.array(TaskSpec).min(1).max(1000) })
  .strict()
  // The agent fetches the executor's URIs before it starts; its tasks get no fetch of their own.
  .refine((op) => op.tasks.every((t) => !t.uris?.length), {
    message: "a task of a group gets no fetch of its own: give the URIs to the group's executor",
    path: ['tasks'],
  });

export const ShutdownExecutor = z.object({ frameworkId: Id, executorId: Id }).strict();
export type ShutdownExecutor = z.infer<typeof ShutdownExecutor>;

/** A framework message, either way between a scheduler and one of its executors. */
export const FrameworkMessage = z.object({ frameworkId: Id, executorId: Id, data: Bytes }).strict();
export type FrameworkMessage = z.infer<typeof FrameworkMessage>;

/** An executor ended on its agent: how, and why (Mesos's reasons, e.g. REASON_EXECUTOR_TERMINATED). */
export const ExecutorExited = z
  .object({
    frameworkId: Id,
    executorId: Id,
    /** The wait status as Mesos reports it: exit code, or the signal that ended it. */
    exitCode: z.number().int().optional(),
    signal: z.string().max(20).optional(),
    reason: z.string().max(100).optional(),
    message: z.string().max(10_000).optional(),
  })
  .strict();
export type ExecutorExited = z.infer<typeof ExecutorExited>;

/** An executor an agent runs now, reported when it (re-)registers. */
export const RunningExecutorReport = z.object({ frameworkId: Id, executorId: Id, resources: Resources }).strict();
export type RunningExecutorReport = z.infer<typeof RunningExecutorReport>;

/** Scheduler calls about an executor on an agent (SDK). */
export const ExecutorCall = z.object({ agentId: Id, executorId: Id }).strict();
export type ExecutorCall = z.infer<typeof ExecutorCall>;
export const SchedulerMessage = z.object({ agentId: Id, executorId: Id, data: Bytes }).strict();
export type SchedulerMessage = z.infer<typeof SchedulerMessage>;

/** Events a framework hears about its executors (SDK). */
export interface ExecutorFailure {
  agentId: string;
  executorId: string;
  exitCode?: number;
  signal?: string;
  reason?: string;
  message?: string;
}

/** What an agent calls on /agents about its executors (joined into AgentCalls once the control plane answers them). */
export interface AgentExecutorCalls {
  executorExited: (m: ExecutorExited, ack?: (r: Reply) => void) => void;
  executorMessage: (m: FrameworkMessage, ack?: (r: Reply) => void) => void;
}
