/**
 * A task's spec as its row keeps it, and the launch an agent is sent from the row (at the accept,
 * and again for a STAGING task its agent re-registered without). Pure.
 */
import { Resources } from '@arbiter/allocator';
import type { LaunchTask, TaskSpec } from '@arbiter/contracts';
import type { TaskEntity } from './task.entity';

/** What the agent runs, in the row's `command`: the command, its environment, the data for its executor, the executor that runs it. */
interface StoredCommand {
  command: TaskSpec['command'];
  env?: Record<string, string>;
  data?: string;
  executor?: TaskSpec['executor'];
  /** The task group (LAUNCH_GROUP) it was launched in: its first task's id. */
  group?: string;
  /** Its checks, run by its executor (the agent's command executor, or its own). */
  healthCheck?: TaskSpec['healthCheck'];
  check?: TaskSpec['check'];
  /** What the agent fetches into its sandbox first. */
  uris?: TaskSpec['uris'];
}

type SpecFields = Pick<
  TaskEntity,
  'command' | 'labels' | 'discovery' | 'dataBytes' | 'killGracePeriodSeconds' | 'maxCompletionTimeSeconds' | 'container'
>;

/**
 * The row's fields of a spec (the data's bytes go with its command, their size in `dataBytes`);
 * `group`: the task group it is launched in, so that it is sent again as one.
 */
export function storedSpec(spec: TaskSpec, group?: string): SpecFields {
  const command: StoredCommand = {
    command: spec.command,
    env: spec.env ?? {},
    ...(spec.data !== undefined ? { data: spec.data } : {}),
    ...(spec.executor ? { executor: spec.executor } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(spec.healthCheck ? { healthCheck: spec.healthCheck } : {}),
    ...(spec.check ? { check: spec.check } : {}),
    ...(spec.uris?.length ? { uris: spec.uris } : {}),
  };
  return {
    command: { ...command },
    labels: spec.labels?.length ? spec.labels : null,
    discovery: spec.discovery ?? null,
    dataBytes: spec.data === undefined ? null : Buffer.from(spec.data, 'base64').length,
    killGracePeriodSeconds: spec.killPolicy?.gracePeriodSeconds ?? null,
    maxCompletionTimeSeconds: spec.maxCompletionTimeSeconds ?? null,
    container: spec.container ?? null,
  };
}

/** The launch of a stored task. */
export function launchOf(task: TaskEntity): LaunchTask {
  const spec = task.command as unknown as StoredCommand;
  const mem = Resources.of(task.resources).get('mem');
  const grace = task.killGracePeriodSeconds ?? undefined;
  const deadline = task.maxCompletionTimeSeconds ?? undefined;
  return {
    frameworkId: task.frameworkId,
    task: {
      taskId: task.taskId,
      name: task.name,
      command: spec.command,
      env: spec.env,
      resources: task.resources,
      ...(task.user ? { user: task.user } : {}),
      ...(spec.data !== undefined ? { data: spec.data } : {}),
      ...(spec.executor ? { executor: spec.executor } : {}),
      ...(spec.uris?.length ? { uris: spec.uris } : {}),
      ...(task.labels ? { labels: task.labels } : {}),
      ...(task.discovery ? { discovery: task.discovery } : {}),
      ...(task.container ? { container: task.container } : {}),
      ...(grace !== undefined ? { killPolicy: { gracePeriodSeconds: grace } } : {}),
      ...(deadline !== undefined ? { maxCompletionTimeSeconds: deadline } : {}),
      ...(spec.healthCheck ? { healthCheck: spec.healthCheck } : {}),
      ...(spec.check ? { check: spec.check } : {}),
    },
    ...(mem > 0 ? { memLimitBytes: Math.round(mem * 1024 * 1024) } : {}),
  };
}

/** The task group a stored task was launched in (its first task's id), if any. */
export function groupOf(task: TaskEntity): string | undefined {
  return (task.command as unknown as StoredCommand).group;
}
