/**
 * Persistent volumes on this agent (Mesos's `<work_dir>/volumes/roles/<role>/<persistence id>`):
 * directories outside every sandbox, made when the control plane says a volume was created and
 * removed, with their data, when it says one was destroyed (refused while a container uses
 * one). A container whose resources name a volume (`disk` with `volume`, reserved for its role)
 * sees it at the volume's container path: a bind mount where the agent can mount (image tasks:
 * in their root filesystem, or under the sandbox when relative; plain tasks: in their sandbox),
 * else a symbolic link in the sandbox (as Mesos's `filesystem/posix`, where the mode cannot be
 * enforced). What each volume is (container path, mode) is recorded in `volumes/volumes.json`,
 * written whole and renamed into place, so it survives an agent restart with the data.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CreateVolume,
  type CreateVolumeReply,
  DestroyVolume,
  parseMessage,
  type Reply,
  type ResourceEntry,
  type VolumeDiskSource,
} from '@arbiter/contracts';
import { CONTAINER_SANDBOX, type BindMount } from './runtime/oci-spec';
import { VolumeError, within } from './runtime/volumes';

interface VolumeRecord {
  role: string;
  id: string;
  containerPath: string;
  mode: 'RW' | 'RO';
  source?: VolumeDiskSource;
}

/** How a container gets its volumes. */
export interface VolumeUse {
  sandbox: string;
  /** It runs in an image (bind mounts by the runtime). */
  image: boolean;
  /** Plain tasks are started in a mount namespace of their own (bind mounts by the wrapper); else links. */
  mounts: boolean;
  /** The task's user, who gets the volume when no other container holds it (only when the agent is root). */
  owner?: { uid: number; gid: number };
}

const keyOf = (role: string, id: string) => `${role}\u0000${id}`;

export class PersistentVolumes {
  readonly root: string;
  private readonly recordsFile: string;
  private records = new Map<string, VolumeRecord>();
  /** Containers holding each volume (by key), while they run. */
  private readonly holders = new Map<string, Set<string>>();

  constructor(workDir: string) {
    this.root = path.join(workDir, 'volumes');
    this.recordsFile = path.join(this.root, 'volumes.json');
    try {
      const list = JSON.parse(fs.readFileSync(this.recordsFile, 'utf8')) as VolumeRecord[];
      this.records = new Map(list.map((r) => [keyOf(r.role, r.id), r]));
    } catch {
      // None yet (or unreadable: the volumes' directories are still there, and CREATE records them again).
    }
  }

  /**
   * Where a volume lives (as Mesos): on the root disk under the work directory, on a PATH disk
   * the same under its root, on a MOUNT disk its root itself; a role's `/` written as a space.
   */
  pathOf(role: string, id: string, source?: VolumeDiskSource): string {
    if (source?.type === 'MOUNT') return source.root;
    return path.join(source ? path.join(source.root, 'volumes') : this.root, 'roles', role.replaceAll('/', ' '), id);
  }

  list(): VolumeRecord[] {
    return [...this.records.values()];
  }

  /** 'createVolume': the directory (kept when it is there already: CREATE is idempotent) and its record. */
  create(payload: unknown, ack?: (r: Reply<CreateVolumeReply>) => void): void {
    const msg = parseMessage(CreateVolume, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const { role, id, containerPath, mode, source } = msg.value;
    const where = this.pathOf(role, id, source);
    try {
      fs.mkdirSync(this.root, { recursive: true });
      fs.chmodSync(this.root, 0o711);
      if (source?.type !== 'MOUNT')
        for (const dir of [path.dirname(path.dirname(path.dirname(where))), path.dirname(path.dirname(where)), path.dirname(where)]) {
          fs.mkdirSync(dir, { recursive: true });
          fs.chmodSync(dir, 0o711);
        }
      fs.mkdirSync(where, { recursive: true, mode: 0o750 });
      this.records.set(keyOf(role, id), { role, id, containerPath, mode, ...(source ? { source } : {}) });
      this.save();
      ack?.({ ok: true, path: where });
    } catch (err) {
      ack?.({ ok: false, error: { code: 'INTERNAL_ERROR', message: `could not make volume ${id}: ${(err as Error).message}` } });
    }
  }

  /** 'destroyVolume': refused while a container holds it; else its directory and data go (nothing there: done). */
  destroy(payload: unknown, ack?: (r: Reply) => void): void {
    const msg = parseMessage(DestroyVolume, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const { role, id } = msg.value;
    const holders = this.holders.get(keyOf(role, id));
    if (holders?.size)
      return ack?.({
        ok: false,
        error: { code: 'VOLUME_IN_USE', message: `volume ${id} of role '${role}' is used by ${holders.size} running container(s)` },
      });
    try {
      const source = this.records.get(keyOf(role, id))?.source ?? msg.value.source;
      const where = this.pathOf(role, id, source);
      // A MOUNT disk's volume is the disk: its data goes, its mount point stays.
      if (source?.type === 'MOUNT')
        for (const e of fs.existsSync(where) ? fs.readdirSync(where) : []) fs.rmSync(path.join(where, e), { recursive: true, force: true });
      else fs.rmSync(where, { recursive: true, force: true });
      this.records.delete(keyOf(role, id));
      this.save();
      ack?.({ ok: true });
    } catch (err) {
      ack?.({ ok: false, error: { code: 'INTERNAL_ERROR', message: `could not remove volume ${id}: ${(err as Error).message}` } });
    }
  }

  /**
   * The volumes a container's resources name, held for it until `release`: bind mounts to make
   * (image tasks, and plain tasks in a mount namespace), or links made here in the sandbox.
   * Throws a VolumeError for a volume this agent does not have.
   */
  use(container: string, resources: readonly ResourceEntry[], how: VolumeUse): BindMount[] {
    const binds: BindMount[] = [];
    for (const e of resources) {
      if (e.name !== 'disk' || !e.volume) continue;
      const record = e.reservation ? this.records.get(keyOf(e.reservation, e.volume)) : undefined;
      const source = record && this.pathOf(record.role, record.id, record.source);
      if (!record || !source || !fs.existsSync(source))
        throw new VolumeError(`persistent volume ${e.volume} of role '${e.reservation ?? '*'}' is not on this agent`);
      const where = record.containerPath;
      if (!how.image && path.isAbsolute(where))
        throw new VolumeError(
          `persistent volume ${record.id}: a task without an image takes only a container path relative to its sandbox`,
        );
      const holders = this.holders.get(keyOf(record.role, record.id)) ?? new Set<string>();
      // Named twice (an executor's and its task's resources): made once.
      if (holders.has(container)) continue;
      // Its first user owns it (as Mesos gives a volume to the task's user when none holds it).
      if (how.owner && holders.size === 0) fs.chownSync(source, how.owner.uid, how.owner.gid);
      holders.add(container);
      this.holders.set(keyOf(record.role, record.id), holders);
      const destination = path.isAbsolute(where) ? path.normalize(where) : path.join(how.image ? CONTAINER_SANDBOX : how.sandbox, where);
      if (!how.image && !within(how.sandbox, destination))
        throw new VolumeError(`persistent volume ${record.id}: its container path leads outside the sandbox`);
      if (how.image || how.mounts)
        binds.push({ source, destination, readOnly: record.mode === 'RO', ...(how.image ? {} : { early: true }) });
      else this.link(source, destination);
    }
    return binds;
  }

  /**
   * After an agent restart: a recovered container (still running) holds the volumes its
   * resources name again, so that a DESTROY is refused while it runs (its mounts or links are
   * there already). Volumes this agent does not have are skipped.
   */
  hold(container: string, resources: readonly ResourceEntry[]): void {
    for (const e of resources) {
      if (e.name !== 'disk' || !e.volume || !e.reservation || !this.records.has(keyOf(e.reservation, e.volume))) continue;
      const key = keyOf(e.reservation, e.volume);
      this.holders.set(key, (this.holders.get(key) ?? new Set<string>()).add(container));
    }
  }

  /** The container ended: it holds its volumes no longer (nor do the tasks it ran, held as `<container>/<task id>`). */
  release(container: string): void {
    for (const [key, holders] of this.holders) {
      for (const h of holders) if (h === container || h.startsWith(`${container}/`)) holders.delete(h);
      if (!holders.size) this.holders.delete(key);
    }
  }

  private link(source: string, destination: string): void {
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    if (fs.lstatSync(destination, { throwIfNoEntry: false }))
      throw new VolumeError(`persistent volume: ${destination} exists in the sandbox`);
    fs.symlinkSync(source, destination);
  }

  private save(): void {
    const tmp = `${this.recordsFile}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.list()), { mode: 0o600 });
    fs.renameSync(tmp, this.recordsFile);
  }
}
