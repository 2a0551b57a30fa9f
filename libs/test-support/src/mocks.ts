/**
 * Rows as the control plane stores them, with defaults a test overrides field by field:
 * `mockFramework({ id: 'f1', roles: ['ops'] })` instead of a literal of every column.
 */
import { randomUUID } from 'node:crypto';
import { parseResources } from '@arbiter/allocator';
import {
  type AgentEntity,
  AgentStatus,
  type FrameworkEntity,
  FrameworkState,
  type OfferEntity,
  OfferState,
  type TaskEntity,
  TaskState,
} from '@arbiter/control-plane/entities';

/** The time every mock is stamped with unless told otherwise. */
const NOW = () => new Date();

/** The overrides that are given: a key present as undefined keeps its default. */
const given = <T extends object>(overrides: T): T => Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as T;

export function mockFramework(fields: Partial<FrameworkEntity> & { id: string }): FrameworkEntity {
  const overrides = given(fields);
  const at = overrides.registeredAt ?? NOW();
  const state = overrides.state ?? FrameworkState.ACTIVE;
  return {
    name: `fw-${overrides.id}`,
    principal: null,
    user: null,
    roles: ['default'],
    capabilities: [],
    failoverTimeoutSeconds: 60,
    hostname: null,
    webuiUrl: null,
    checkpoint: true,
    protocol: 'arbiter',
    state,
    suppressedRoles: [],
    registeredAt: at,
    disconnectedAt: state === FrameworkState.DISCONNECTED ? at : null,
    completedAt: state === FrameworkState.COMPLETED ? at : null,
    ...overrides,
  };
}

/** An agent; `resources` may be given as text (`cpus:4;mem:8192`). */
export function mockAgent(
  overrides: Omit<Partial<AgentEntity>, 'resources'> & { id: string; resources?: string | AgentEntity['resources'] },
): AgentEntity {
  const at = NOW();
  const { resources, ...rest } = given(overrides);
  return {
    hostname: `${overrides.id}.example`,
    address: null,
    attributes: {},
    status: AgentStatus.REACHABLE,
    activated: true,
    drainState: null,
    drainConfig: null,
    drainStartedAt: null,
    version: null,
    principal: null,
    isolation: null,
    health: null,
    firstSeenAt: at,
    lastSeenAt: at,
    ...rest,
    resources:
      typeof resources === 'object' ? resources : parseResources(resources ?? 'cpus:4;mem:8192;disk:10000;ports:[31000-32000]').toJSON(),
  };
}

/** A task; its resources default to <1 cpu, 512 MB> (`cpus`/`mem` set them without a list). */
export function mockTask(overrides: Partial<TaskEntity> & { taskId: string; cpus?: number; mem?: number }): TaskEntity {
  const at = overrides.createdAt ?? NOW();
  const { cpus = 1, mem = 512, ...rest } = given(overrides);
  const frameworkId = rest.frameworkId ?? 'f1';
  return {
    id: randomUUID(),
    frameworkId,
    agentId: 'a1',
    name: rest.taskId,
    role: 'default',
    resources: [
      { name: 'cpus', value: cpus },
      { name: 'mem', value: mem },
    ],
    command: null,
    state: TaskState.RUNNING,
    createdAt: at,
    updatedAt: at,
    ...rest,
  };
}

/** An offer; `id` defaults to a new UUID, as the control plane gives one. */
export function mockOffer(overrides: Partial<OfferEntity> = {}): OfferEntity {
  return {
    id: randomUUID(),
    frameworkId: 'f1',
    agentId: 'a1',
    role: 'default',
    resources: [{ name: 'cpus', value: 1 }],
    state: OfferState.OUTSTANDING,
    cycleId: null,
    createdAt: NOW(),
    expiresAt: null,
    closedAt: null,
    ...given(overrides),
  };
}
