export * from './agent';
export * from './detect';
export * from './session/journal';
export * from './executors/task-runner';
export * from './containerizer/isolators/cgroups';
export { diskUsage } from './containerizer/isolators/disk';
export { residentByGroup } from './containerizer/isolators/memory';
export { processStartTicks, TASK_PATH } from './containerizer/launcher';
export * from './containerizer/users';
