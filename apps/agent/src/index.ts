export * from './agent';
export * from './detect';
export * from './session/journal';
export * from './executors/task-runner';
export { durationMs } from './executors/executor-protocol';
export * from './containerizer/isolators/cgroups';
export { diskUsage } from './containerizer/isolators/disk';
export { residentByGroup } from './containerizer/isolators/memory';
export { processStartTicks, TASK_PATH } from './containerizer/launcher';
export * from './containerizer/users';
export { sandboxOf } from './containerizer/sandbox';
export {
  createProvisioner,
  detectImageTools,
  ImageError,
  type ImageMetrics,
  imageOptionsFromEnv,
  ImageProvisioner,
  parseBytes,
  parseCredentials,
  type ProvisionedImage,
  type Provisioner,
  type ProvisionerOptions,
} from './containerizer/provisioner';
export {
  detectGpus,
  detectNvidiaGpus,
  nvidiaContainerMounts,
  type Gpu,
  type GpuDetectOptions,
  type NvidiaGpu,
} from './containerizer/isolators/nvidia';
export { gpuEnvironment } from './containerizer/isolators/gpus';
export { ALL_PORTS, parsePortRanges, type PortRange, type PortsOptions } from './containerizer/isolators/ports';
export { OPTIONAL_ISOLATORS } from './containerizer/containerizer';
export type { ImageConfig } from './containerizer/provisioner/image';
