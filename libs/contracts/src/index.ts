/** The wire: message schemas (zod) and types shared by the control plane, agents, the SDK and the dashboard. */
export * from './common';
export * from './agents';
export * from './frameworks';
export * from './events';
