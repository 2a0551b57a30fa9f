/**
 * Arbiter's views (the REST DTOs) as the messages of Mesos's operator API, in Mesos's JSON
 * mapping: ids as `{ value }`, resources as Resource lists, times as TimeInfo (nanoseconds),
 * enums by name. The protobuf encoding writes the same objects (operator-encoding.ts).
 */
import type { ResourceEntry } from '@arbiter/contracts';
import { mesosTaskState } from '@arbiter/contracts';
import type { AgentViewDto } from '../agents/agents.dto';
import { AgentStatus } from '../agents/agent.entity';
import type { ExecutorEntity } from '../executors/executor.entity';
import type { FrameworkDto } from '../frameworks/frameworks.dto';
import { FrameworkState } from '../frameworks/framework.entity';
import type { RoleDto } from '../roles/roles.dto';
import type { TaskDto } from '../tasks/tasks.dto';
import { MESOS_STAR, toMesosResource } from '../mesos/mesos-codec';

type Obj = Record<string, unknown>;

const id = (value: string) => ({ value });

/** An ISO date-time as Mesos's TimeInfo. */
export const timeInfo = (iso: string | Date | null | undefined): Obj | undefined =>
  iso ? { nanoseconds: (typeof iso === 'string' ? Date.parse(iso) : iso.getTime()) * 1e6 } : undefined;

const present = (entries: Obj): Obj => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));

/** A map of scalars (`{ cpus: 2 }`) as a Resource list, zeros left out. */
export const scalarResources = (map: Record<string, number>): Obj[] =>
  Object.entries(map)
    .filter(([, v]) => v > 0)
    .map(([name, value]) => ({ name, type: 'SCALAR', scalar: { value }, role: MESOS_STAR }));

export const resources = (entries: readonly ResourceEntry[], allocationRole?: string): Obj[] =>
  entries.map((e) => toMesosResource(e, allocationRole));

/** What a task's message is made of: a REST TaskDto, or a row of the operator's state reads. */
export type TaskLike = Pick<TaskDto, 'taskId' | 'name' | 'frameworkId' | 'agentId' | 'role' | 'resources' | 'state'> & {
  updatedAt: string | Date;
  healthy: boolean | null;
  labels: Array<{ key: string; value?: string }> | null;
};

/** What an agent's message is made of: a REST AgentViewDto, or a row of the operator's state reads with its usage. */
export type AgentLike = Pick<AgentViewDto, 'id' | 'hostname' | 'address' | 'attributes' | 'resources' | 'activated' | 'version'> & {
  status: string;
  drainState: string | null;
  drainConfig: { maxGracePeriodSeconds: number | null; markGone: boolean } | null;
  firstSeenAt: string | Date;
  usage: { used: Record<string, number>; offered: Record<string, number> };
};

export function operatorTask(t: TaskLike): Obj {
  const state = mesosTaskState(t.state);
  return present({
    name: t.name,
    task_id: id(t.taskId),
    framework_id: id(t.frameworkId),
    agent_id: id(t.agentId),
    state,
    resources: resources(t.resources, t.role),
    statuses: [
      present({
        task_id: id(t.taskId),
        state,
        agent_id: id(t.agentId),
        timestamp: new Date(t.updatedAt).getTime() / 1000,
        ...(t.healthy !== null ? { healthy: t.healthy } : {}),
      }),
    ],
    labels: t.labels?.length ? { labels: t.labels } : undefined,
  });
}

/** What a framework's FrameworkInfo is made of: a REST FrameworkDto, or what its framework.added event says. */
export type FrameworkInfoLike = Pick<
  FrameworkDto,
  'id' | 'name' | 'user' | 'failoverTimeoutSeconds' | 'checkpoint' | 'roles' | 'hostname' | 'principal' | 'webuiUrl' | 'capabilities'
>;

export function frameworkInfo(f: FrameworkInfoLike): Obj {
  return present({
    user: f.user ?? '',
    name: f.name,
    id: id(f.id),
    failover_timeout: f.failoverTimeoutSeconds,
    checkpoint: f.checkpoint,
    ...(f.roles.length === 1 ? { role: f.roles[0] } : {}),
    roles: f.roles,
    hostname: f.hostname ?? undefined,
    principal: f.principal ?? undefined,
    webui_url: f.webuiUrl ?? undefined,
    capabilities: f.capabilities.map((type) => ({ type })),
  });
}

export function operatorFramework(f: FrameworkDto): Obj {
  return present({
    framework_info: frameworkInfo(f),
    active: f.state === FrameworkState.ACTIVE,
    connected: f.connected,
    recovered: false,
    registered_time: timeInfo(f.registeredAt),
    unregistered_time: timeInfo(f.completedAt),
    allocated_resources: scalarResources(f.used),
    offered_resources: [],
  });
}

function attribute(name: string, value: string | number): Obj {
  return typeof value === 'number' ? { name, type: 'SCALAR', scalar: { value } } : { name, type: 'TEXT', text: { value } };
}

export function operatorAgent(a: AgentLike): Obj {
  const port = Number(a.address?.split(':').pop() ?? 0) || 0;
  return present({
    agent_info: present({
      hostname: a.hostname,
      port,
      resources: resources(a.resources),
      attributes: Object.entries(a.attributes).map(([k, v]) => attribute(k, v)),
      id: id(a.id),
    }),
    active: a.status === (AgentStatus.REACHABLE as string),
    deactivated: !a.activated,
    version: a.version ?? '',
    pid: `slave(1)@${a.address ?? `${a.hostname}:${port}`}`,
    registered_time: timeInfo(a.firstSeenAt),
    total_resources: resources(a.resources),
    allocated_resources: scalarResources(a.usage.used),
    offered_resources: scalarResources(a.usage.offered),
    drain_info: a.drainState
      ? {
          state: a.drainState,
          config: present({
            max_grace_period:
              a.drainConfig?.maxGracePeriodSeconds != null ? { nanoseconds: a.drainConfig.maxGracePeriodSeconds * 1e9 } : undefined,
            mark_gone: a.drainConfig?.markGone ?? false,
          }),
        }
      : undefined,
  });
}

export function operatorExecutor(e: ExecutorEntity): Obj {
  return {
    executor_info: present({
      executor_id: id(e.executorId),
      framework_id: id(e.frameworkId),
      type: e.spec.type,
      name: e.spec.name,
      resources: resources(e.resources, e.role),
    }),
    agent_id: id(e.agentId),
  };
}

export function operatorRole(r: RoleDto): Obj {
  return { name: r.path, weight: r.weight, frameworks: r.frameworks.map(id), resources: scalarResources(r.allocated) };
}

/** Mesos's Value.Scalar map (`{ cpus: { value: 2 } }`) of a scalar map. */
export const scalarMap = (map: Record<string, number> | null | undefined): Record<string, { value: number }> =>
  Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, { value: v }]));
