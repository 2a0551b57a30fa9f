/**
 * The extension points and the interfaces a module implements: what each hook is given, what
 * it may answer, and the allocator policies (a sorter, a placement strategy) in the allocator's
 * own types. A module names the points it implements and the module API version it was
 * written for; the loader refuses one it cannot run (loader.ts).
 */
import type { AllocatorConfig, PlacementStrategy, SorterFactory } from '@arbiter/allocator';
import type { ModuleIsolator } from './isolator-module';
import type { QoSController, ResourceEstimator } from './oversubscription';

/**
 * The module API this Arbiter runs. A module written for another version is refused at start:
 * the version changes whenever an interface below changes in a way an old module would miss.
 */
export const MODULE_API_VERSION = 1;

/** Every extension point, by name: `<process>:<what>`. */
export const EXTENSION_POINTS = [
  'control-plane:task-launch',
  'agent:executor-start',
  'agent:container-start',
  'agent:executor-removed',
  'agent:resource-estimator',
  'agent:qos-controller',
  'agent:isolator',
  'allocator:sorter',
  'allocator:placement',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** Who loads modules: the control plane, an agent, or a tool that only runs the allocator (simulate, what-if, bench). */
export type ModuleHost = 'control-plane' | 'agent' | 'allocator';

/** The points each host runs. */
export const HOST_POINTS: Readonly<Record<ModuleHost, readonly ExtensionPoint[]>> = {
  'control-plane': ['control-plane:task-launch', 'allocator:sorter', 'allocator:placement'],
  agent: [
    'agent:executor-start',
    'agent:container-start',
    'agent:executor-removed',
    'agent:resource-estimator',
    'agent:qos-controller',
    'agent:isolator',
  ],
  allocator: ['allocator:sorter', 'allocator:placement'],
};

/** A key with an optional value (Mesos's Label). */
export interface KeyValue {
  key: string;
  value?: string;
}

/** What a task-launch hook is told: a task the control plane is about to send to its agent (in the accept's turn). */
export interface TaskLaunchInput {
  frameworkId: string;
  frameworkName: string;
  /** The role whose offered resources the task uses. */
  role: string;
  /** The framework's principal, when it authenticated as one. */
  principal?: string;
  agentId: string;
  hostname?: string;
  task: {
    taskId: string;
    name: string;
    labels: readonly KeyValue[];
    /** The task's environment as its framework gave it. */
    environment: Readonly<Record<string, string>>;
    /** The task's resources, Mesos-style entries (`{ name, type, scalar | ranges | set, role?, ... }`). */
    resources: readonly unknown[];
    executorId?: string;
    /** The container image it runs, if any. */
    image?: string;
  };
}

/**
 * A task-launch hook's answer: nothing (launch as it is), labels and environment variables to
 * add (a label with a key the task has replaces it; a variable replaces the task's), or
 * `{ refuse: reason }`: the task is not launched and ends TASK_ERROR with the reason.
 */
export type TaskLaunchDecision = undefined | { refuse: string } | { labels?: KeyValue[]; environment?: Record<string, string> };
export type TaskLaunchHook = (input: TaskLaunchInput) => TaskLaunchDecision | Promise<TaskLaunchDecision>;

/** What an agent hook is told about an executor or a task's container about to start. */
export interface StartInput {
  agentId: string;
  frameworkId: string;
  /** The task, for a container of the command executor; absent for an executor. */
  taskId?: string;
  executorId?: string;
  /** The sandbox directory (made already for a task's container; about to be made for an executor). */
  sandbox: string;
  /** The OS user it runs as, when the spec names one. */
  user?: string;
  environment: Readonly<Record<string, string>>;
  image?: string;
}

/** Environment variables to add to (or replace in) what starts; nothing leaves it as it is. */
export type StartDecision = undefined | { environment?: Record<string, string> };
export type StartHook = (input: StartInput) => StartDecision | Promise<StartDecision>;

/** What the executor-removed hook is told: an executor has ended and its container is gone. */
export interface ExecutorRemovedInput {
  agentId: string;
  frameworkId: string;
  executorId: string;
  sandbox: string;
}
export type ExecutorRemovedHook = (input: ExecutorRemovedInput) => void | Promise<void>;

/** Makes the placement strategy of an allocator, from its configuration and seeded randomness. */
export type PlacementFactory = (config: AllocatorConfig, random: () => number) => PlacementStrategy;

/** What a module's `create` returns: one member per point it declared. */
export interface ModuleInstance {
  taskLaunch?: TaskLaunchHook;
  executorStart?: StartHook;
  containerStart?: StartHook;
  executorRemoved?: ExecutorRemovedHook;
  /** Makes every sorter of the allocator (the roles' and each role's frameworks'); same inputs and outputs as the DRF sorter. */
  sorter?: SorterFactory;
  placement?: PlacementFactory;
  /** The agent's revocable resources (oversubscription.ts). */
  resourceEstimator?: ResourceEstimator;
  /** Revocable tasks to kill when the agent gets busy (oversubscription.ts). */
  qosController?: QoSController;
  /** An isolator the agent runs beside its own for every task's container (isolator-module.ts). */
  isolator?: ModuleIsolator;
  /** Called once when the process stops. */
  close?: () => void | Promise<void>;
}

/** The member of ModuleInstance each point is. */
export const POINT_MEMBER: Readonly<Record<ExtensionPoint, keyof ModuleInstance>> = {
  'control-plane:task-launch': 'taskLaunch',
  'agent:executor-start': 'executorStart',
  'agent:container-start': 'containerStart',
  'agent:executor-removed': 'executorRemoved',
  'agent:resource-estimator': 'resourceEstimator',
  'agent:qos-controller': 'qosController',
  'agent:isolator': 'isolator',
  'allocator:sorter': 'sorter',
  'allocator:placement': 'placement',
};

/** What `create` is given besides its parameters. */
export interface ModuleContext {
  host: ModuleHost;
  /** The directory of the modules file, for parameters naming files. */
  baseDir: string;
  log(message: string, fields?: Record<string, unknown>): void;
}

/** A module: the default export (or `module` export) of its package or file. */
export interface ArbiterModule {
  /** A short name for logs and metrics. */
  name: string;
  /** The module API version it was written for (MODULE_API_VERSION when it was built). */
  apiVersion: number;
  points: readonly ExtensionPoint[];
  create(parameters: Readonly<Record<string, unknown>>, context: ModuleContext): ModuleInstance | Promise<ModuleInstance>;
}

/** Types a module's definition (an identity function: it only checks the shape at compile time). */
export function defineModule(module: ArbiterModule): ArbiterModule {
  return module;
}
