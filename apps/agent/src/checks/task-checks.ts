/**
 * The checks of the command executor's tasks, from RUNNING until the task ends: at most one
 * health checker and one general checker per task. Tasks under other executors are checked by
 * their executor (as in Mesos), which reports `healthy` and `checkStatus` in its own updates.
 */
import type { CheckStatus, TaskSpec } from '@arbiter/contracts';
import { GeneralChecker, HealthChecker } from './checker';
import { type CheckClock, systemClock } from './clock';
import { type CheckTarget, containerRunner, processRunner } from './command';
import { type CommandRunner, probeOf } from './probes';

export interface ChecksOptions {
  clock?: CheckClock;
  /** Who runs a task's check commands (default: beside the task in its cgroup; inside its container, `runc exec`, for an image's). */
  commands?: (task: CheckedTask) => CommandRunner;
}

export interface CheckedTask {
  frameworkId: string;
  spec: TaskSpec;
  target: CheckTarget;
  /** What its checks told last, when they ran before (an agent restarted): not told again. */
  last?: { healthy?: boolean; checkStatus?: CheckStatus };
}

interface CheckEvents {
  health(healthy: boolean, message: string): void;
  kill(message: string): void;
  status(status: CheckStatus): void;
}

/** What a task with a general check reports before its first result (Mesos: the check's type, no result). */
export function initialCheckStatus(spec: TaskSpec): CheckStatus | undefined {
  return spec.check ? { type: spec.check.probe.type } : undefined;
}

/** The environment of a check's command: the task's own, and where its sandbox is. */
export function checkEnv(spec: TaskSpec, frameworkId: string, sandbox: string, path: string): NodeJS.ProcessEnv {
  return {
    ...(spec.env ?? {}),
    PATH: spec.env?.PATH ?? path,
    HOME: sandbox,
    LANG: spec.env?.LANG ?? 'C.UTF-8',
    ARBITER_TASK_ID: spec.taskId,
    ARBITER_FRAMEWORK_ID: frameworkId,
    ARBITER_SANDBOX: sandbox,
    MESOS_SANDBOX: sandbox,
  };
}

export class TaskChecks {
  private readonly running = new Map<string, Array<{ stop(): void }>>();

  constructor(private readonly options: ChecksOptions = {}) {}

  start(key: string, task: CheckedTask, events: CheckEvents): void {
    const { healthCheck, check } = task.spec;
    this.stop(key);
    if (!healthCheck && !check) return;
    const clock = this.options.clock ?? systemClock;
    const { target } = task;
    const commands = this.options.commands?.(task) ?? (target.container ? containerRunner(target.container) : processRunner(target));
    const checkers: Array<{ stop(): void }> = [];
    const { healthy, checkStatus } = task.last ?? {};
    if (healthCheck) checkers.push(new HealthChecker(healthCheck, probeOf(healthCheck.probe, commands), clock, events, healthy));
    if (check) checkers.push(new GeneralChecker(check, probeOf(check.probe, commands), clock, (s) => events.status(s), checkStatus));
    this.running.set(key, checkers);
  }

  stop(key: string): void {
    for (const c of this.running.get(key) ?? []) c.stop();
    this.running.delete(key);
  }

  stopAll(): void {
    for (const k of [...this.running.keys()]) this.stop(k);
  }
}
