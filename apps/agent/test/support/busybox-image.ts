/**
 * A container image for tests, made here from busybox-static (no registry, no download): a root
 * filesystem with /bin/busybox and its applets, and an /etc/os-release of its own; behind a
 * Provisioner that hands it out (and refuses references starting with `missing`).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ImageConfig, ImageError, type ProvisionedImage, type Provisioner } from '../../src/containerizer/provisioner/image';

export const OS_RELEASE_MARKER = 'ID=arbiter-test-image';
const APPLETS = ['sh', 'ps', 'cat', 'sleep', 'id', 'ls', 'head', 'echo', 'pwd', 'touch', 'mkdir', 'test', '[', 'true', 'false'];

/** A busybox root filesystem under `dir` (made once); `id`: its os-release's ID (default arbiter-test-image). */
export function busyboxRootfs(dir: string, id = 'arbiter-test-image'): string {
  const rootfs = path.join(dir, 'rootfs');
  if (fs.existsSync(path.join(rootfs, 'etc', 'os-release'))) return rootfs;
  for (const d of ['bin', 'etc', 'tmp', 'work']) fs.mkdirSync(path.join(rootfs, d), { recursive: true });
  fs.chmodSync(rootfs, 0o755);
  fs.chmodSync(path.join(rootfs, 'tmp'), 0o1777);
  fs.copyFileSync('/bin/busybox', path.join(rootfs, 'bin', 'busybox'));
  fs.chmodSync(path.join(rootfs, 'bin', 'busybox'), 0o755);
  for (const a of APPLETS) fs.symlinkSync('busybox', path.join(rootfs, 'bin', a));
  fs.writeFileSync(path.join(rootfs, 'etc', 'os-release'), `NAME="Arbiter test image"\nID=${id}\n`);
  return rootfs;
}

export class BusyboxProvisioner implements Provisioner {
  provisioned = 0;
  released = 0;

  constructor(
    private readonly dir: string,
    private readonly config: ImageConfig = { env: ['PATH=/bin', 'IMAGE_VAR=from-image'] },
    /** Each reference an image of its own, its os-release's ID `image-<name>` (`alpha:1`: image-alpha). */
    private readonly perReference = false,
  ) {}

  async provision(reference: string): Promise<ProvisionedImage> {
    await new Promise((resolve) => setImmediate(resolve));
    if (reference.startsWith('missing')) throw new ImageError(`image ${reference} was not found in the registry`);
    const name = reference.split(':')[0].replace(/[^a-z0-9]/gi, '-');
    const rootfs = this.perReference ? busyboxRootfs(path.join(this.dir, name), `image-${name}`) : busyboxRootfs(this.dir);
    this.provisioned++;
    return {
      reference: `localhost/${reference}`,
      digest: `sha256:${crypto.createHash('sha256').update(reference).digest('hex')}`,
      rootfs,
      config: this.config,
      release: () => {
        this.released++;
      },
    };
  }
}
