/** The wire: message schemas (zod) and types shared by the control plane, agents, the SDK and the dashboard. */
export * from './task-states';
export * from './errors';
export * from './common';
export * from './task-parts';
export * from './input';
export * from './agents';
export * from './executors';
export * from './files';
export * from './volumes';
export * from './frameworks';
export * from './operation-feedback';
export * from './events';
export * from './decisions';
export * from './masters';
export type { components, operations, paths } from './api';

/** The REST API's schemas by name, e.g. `Schema<'AgentViewDto'>`. */
export type Schema<Name extends keyof import('./api').components['schemas']> = import('./api').components['schemas'][Name];
export * from './what-if';
export * from './mesos';
export * from './mesos-container';
export * from './mesos-container-codec';
export * from './mesos-command';
