/**
 * Arbiter's specs in Mesos's words, for the events the executor API sends: ExecutorInfo,
 * TaskInfo, Resource, FrameworkInfo and AgentInfo in their JSON form (the protobuf encoder takes
 * the same objects).
 */
import {
  type Check,
  type Command,
  type ExecutorSpec,
  type HealthCheck,
  type Label,
  type ResourceEntry,
  type TaskSpec,
  toMesosContainer,
} from '@arbiter/contracts';

type Json = Record<string, unknown>;

const id = (value: string) => ({ value });
const nanos = (seconds: number) => ({ nanoseconds: Math.round(seconds * 1e9) });
const labels = (l: Label[] | undefined) => (l ? { labels: { labels: l } } : {});

export function mesosResources(resources: ResourceEntry[]): Json[] {
  return resources.map((r) => {
    const role = r.reservation && r.reservation !== '*' ? { allocation_info: { role: r.reservation } } : {};
    if (r.ranges) return { name: r.name, type: 'RANGES', ranges: { range: r.ranges.map(([begin, end]) => ({ begin, end })) }, ...role };
    if (r.set) return { name: r.name, type: 'SET', set: { item: r.set }, ...role };
    return { name: r.name, type: 'SCALAR', scalar: { value: r.value ?? 0 }, ...role };
  });
}

function mesosCommand(command: Command | undefined, env: Record<string, string> | undefined, user?: string): Json | undefined {
  if (!command) return undefined;
  const environment = env ? { environment: { variables: Object.entries(env).map(([name, value]) => ({ name, value })) } } : {};
  const as = user ? { user } : {};
  if ('shell' in command) return { shell: true, value: command.shell, ...environment, ...as };
  return { shell: false, value: command.value, arguments: [command.value, ...(command.arguments ?? [])], ...environment, ...as };
}

/** A check's probe and timing as Mesos's HealthCheck (`health`) or CheckInfo fields. */
function mesosCheck(c: Check | HealthCheck, health: boolean): Json {
  const p = c.probe;
  const probe =
    p.type === 'COMMAND'
      ? { command: health ? mesosCommand(p.command, undefined) : { command: mesosCommand(p.command, undefined) } }
      : p.type === 'HTTP'
        ? {
            http: {
              port: p.port,
              ...(p.path ? { path: p.path } : {}),
              ...(health && p.scheme ? { scheme: p.scheme } : {}),
              ...(health && p.statuses ? { statuses: p.statuses } : {}),
            },
          }
        : { tcp: { port: p.port } };
  return {
    type: p.type,
    ...probe,
    ...(c.delaySeconds !== undefined ? { delay_seconds: c.delaySeconds } : {}),
    ...(c.intervalSeconds !== undefined ? { interval_seconds: c.intervalSeconds } : {}),
    ...(c.timeoutSeconds !== undefined ? { timeout_seconds: c.timeoutSeconds } : {}),
  };
}

function mesosHealthCheck(h: HealthCheck): Json {
  return {
    ...mesosCheck(h, true),
    ...(h.gracePeriodSeconds !== undefined ? { grace_period_seconds: h.gracePeriodSeconds } : {}),
    ...(h.consecutiveFailures !== undefined ? { consecutive_failures: h.consecutiveFailures } : {}),
  };
}

export function mesosExecutorInfo(frameworkId: string, e: ExecutorSpec): Json {
  const command = mesosCommand(e.command, e.env, e.user);
  return {
    type: e.type,
    executor_id: id(e.executorId),
    framework_id: id(frameworkId),
    ...(command ? { command } : {}),
    resources: mesosResources(e.resources),
    ...(e.name ? { name: e.name } : {}),
    ...(e.data ? { data: e.data } : {}),
    ...(e.shutdownGracePeriodSeconds !== undefined ? { shutdown_grace_period: nanos(e.shutdownGracePeriodSeconds) } : {}),
    ...labels(e.labels),
  };
}

export function mesosTaskInfo(frameworkId: string, agentId: string, t: TaskSpec): Json {
  const command = mesosCommand(t.command, t.env, t.user);
  const d = t.discovery;
  return {
    name: t.name,
    task_id: id(t.taskId),
    agent_id: id(agentId),
    resources: mesosResources(t.resources),
    ...(t.executor ? { executor: mesosExecutorInfo(frameworkId, t.executor) } : {}),
    ...(command ? { command } : {}),
    // Its image: the default executor runs it in a nested container of its own.
    ...(t.container ? { container: toMesosContainer(t.container) } : {}),
    ...(t.killPolicy ? { kill_policy: { grace_period: nanos(t.killPolicy.gracePeriodSeconds) } } : {}),
    ...(t.data ? { data: t.data } : {}),
    ...labels(t.labels),
    ...(d
      ? {
          discovery: {
            ...d,
            ...labels(d.labels),
            ...(d.ports ? { ports: { ports: d.ports.map((p) => ({ ...p, ...labels(p.labels) })) } } : {}),
          },
        }
      : {}),
    ...(t.maxCompletionTimeSeconds !== undefined ? { max_completion_time: nanos(t.maxCompletionTimeSeconds) } : {}),
    // Checks are the executor's to run (as in Mesos): it reports healthy and check_status.
    ...(t.healthCheck ? { health_check: mesosHealthCheck(t.healthCheck) } : {}),
    ...(t.check ? { check: mesosCheck(t.check, false) } : {}),
  };
}

export function mesosFrameworkInfo(frameworkId: string, user: string, checkpoint: boolean): Json {
  return { user, name: frameworkId, id: id(frameworkId), checkpoint };
}

export function mesosAgentInfo(agentId: string | undefined, hostname: string, port: number, resources: ResourceEntry[]): Json {
  return { hostname, port, resources: mesosResources(resources), ...(agentId ? { id: id(agentId) } : {}) };
}
