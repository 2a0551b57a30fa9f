/**
 * Volumes (Mesos's `volume/host_path` and `volume/sandbox_path` isolators): what a task asks to
 * have mounted, checked before anything starts. A host path only under a path the agent's
 * configuration allows (`--allowed-host-paths`); a sandbox path only inside the sandbox it
 * names (SELF: the task's, PARENT: its executor's, for task groups).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Volume } from '@arbiter/contracts';
import { CONTAINER_SANDBOX, type BindMount } from './oci-spec';

/** A volume the agent refuses (the message says why, for the task's status). */
export class VolumeError extends Error {}

export interface VolumeContext {
  /** Host paths under which HOST_PATH volumes are allowed (none: every HOST_PATH is refused). */
  allowedHostPaths: readonly string[];
  sandbox: string;
  /** The executor's sandbox, for SANDBOX_PATH PARENT (a task group's shared one). */
  parentSandbox?: string;
  /** Whether the task runs in an image (absolute container paths are in its root filesystem). */
  image: boolean;
  /** Who owns a sandbox path the agent makes because it is not there yet (the task's user). */
  owner?: { uid: number; gid: number };
}

/** `child` is `parent` or below it (both resolved, no `..` left). */
export function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path (symlinks followed) of the longest part of `p` that exists, with the rest after it. */
function real(p: string): string {
  const resolved = path.resolve(p);
  try {
    return fs.realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(real(parent), path.basename(resolved));
  }
}

/**
 * The bind mounts of the task's volumes, in order, or a VolumeError naming the first refused.
 * Destinations: for an image task, absolute paths in its root filesystem and relative ones under
 * /mnt/mesos/sandbox; for a plain task, relative paths under its sandbox (absolute ones must
 * exist on the host, and are covered in the task's mount namespace only).
 */
export function resolveVolumes(volumes: readonly Volume[], ctx: VolumeContext): BindMount[] {
  return volumes.map((v) => {
    const source = sourceOf(v, ctx);
    const where = v.containerPath;
    if (where.split('/').includes('..')) throw new VolumeError(`volume ${where}: the container path may not contain '..'`);
    let destination: string;
    if (path.isAbsolute(where)) destination = path.normalize(where);
    else destination = path.join(ctx.image ? CONTAINER_SANDBOX : ctx.sandbox, where);
    if (!ctx.image && path.isAbsolute(where) && !fs.existsSync(destination))
      throw new VolumeError(`volume ${where}: a task without an image can mount only over a path that exists on the agent`);
    // A plain task's mounts are made as root: a link its sandbox holds must not lead them elsewhere.
    if (!ctx.image && !path.isAbsolute(where) && !within(real(ctx.sandbox), real(destination)))
      throw new VolumeError(`volume ${where}: the container path leads outside the sandbox`);
    return { source, destination, readOnly: v.mode === 'RO' };
  });
}

function sourceOf(v: Volume, ctx: VolumeContext): string {
  const src = v.source;
  if (src.type === 'HOST_PATH') {
    const wanted = real(src.path);
    if (!ctx.allowedHostPaths.some((allowed) => within(real(allowed), wanted)))
      throw new VolumeError(
        ctx.allowedHostPaths.length === 0
          ? `host path ${src.path} is not allowed: this agent allows no host paths (see --allowed-host-paths)`
          : `host path ${src.path} is not allowed: it is outside the agent's allowed host paths (${ctx.allowedHostPaths.join(', ')})`,
      );
    if (!fs.existsSync(wanted)) throw new VolumeError(`host path ${src.path} does not exist on the agent`);
    return wanted;
  }
  const base = src.sandboxType === 'PARENT' ? ctx.parentSandbox : ctx.sandbox;
  if (!base) throw new VolumeError(`volume ${v.containerPath}: a PARENT sandbox path needs a task group's executor`);
  const at = path.resolve(base, src.path);
  // Inside the sandbox once symlinks are followed too: a task cannot point a volume elsewhere.
  if (!within(base, at) || (fs.existsSync(at) && !within(real(base), real(at))))
    throw new VolumeError(`sandbox path ${src.path} is outside the sandbox`);
  if (!fs.existsSync(at)) {
    fs.mkdirSync(at, { recursive: true });
    if (ctx.owner) fs.chownSync(at, ctx.owner.uid, ctx.owner.gid);
  }
  return at;
}
