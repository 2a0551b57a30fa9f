/**
 * The provisioner's entry point for the containerizer: `createProvisioner(workDir, options)`
 * finds skopeo and umoci and returns a provisioner over `<workDir>/images`, or why images
 * cannot run on this agent (reported with its capabilities; plain tasks are unaffected).
 */
import { detectImageTools, type ImageToolsFound } from './image-tools';
import type { ProvisionerOptions } from './options';
import { ImageProvisioner } from './provisioner';

export * from './image';
export { detectImageTools, type ImageTools, type ImageToolsFound } from './image-tools';
export * from './options';
export { type ImageMetrics, ImageProvisioner } from './provisioner';
export { formatReference, type ImageReference, parseReference } from './reference';

export interface ProvisionerFound {
  /** Absent when the image tools are missing: `problem` says why. */
  provisioner?: ImageProvisioner;
  /** Tool versions for AgentCapabilities.tools. */
  versions: Record<string, string>;
  /** AgentCapabilities.imagesProblem. */
  problem?: string;
}

export function createProvisioner(
  workDir: string,
  options: ProvisionerOptions = {},
  log?: ConstructorParameters<typeof ImageProvisioner>[3],
  found: ImageToolsFound = detectImageTools(),
): ProvisionerFound {
  if (!found.tools) return { versions: found.versions, problem: found.problem };
  return { provisioner: new ImageProvisioner(workDir, found.tools, options, log), versions: found.versions };
}
