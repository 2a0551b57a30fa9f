/**
 * What the provisioner hands the containerizer (Mesos's `ProvisionInfo`): an image's root
 * filesystem, shared read-only by every container of that image, and the image's configuration.
 * The runtime gives each container a writable layer above `rootfs` (overlay, or a copy) and
 * never writes into it.
 */

/** The image's own configuration (the OCI image config's `config`). */
export interface ImageConfig {
  /** `NAME=value` entries. */
  env: string[];
  entrypoint?: string[];
  cmd?: string[];
  workingDir?: string;
  user?: string;
}

export interface ProvisionedImage {
  /** The reference as normalized (registry/repository:tag or @digest). */
  reference: string;
  /** The manifest's digest (`sha256:...`): what ran, shown with the task. */
  digest: string;
  /** Absolute path of the unpacked root filesystem (read-only, shared; never modified). */
  rootfs: string;
  config: ImageConfig;
  /** The container no longer uses it (it may be collected once nothing does). */
  release(): void;
}

/** Why an image could not be provisioned, worded for the user (Mesos: REASON_CONTAINER_LAUNCH_FAILED). */
export class ImageError extends Error {
  readonly reason = 'REASON_CONTAINER_LAUNCH_FAILED';
}

export interface Provisioner {
  /** Pulls (once, however many ask at once) and unpacks the image; rejects with ImageError. */
  provision(reference: string, options?: { forcePull?: boolean }): Promise<ProvisionedImage>;
}
