/**
 * Pure rules of persistent volumes: the resource piece a volume is (Mesos's disk with
 * `persistence.id`), an agent's total with its volumes applied, the reserved disk a role has
 * free for new volumes, and who uses a volume.
 */
import { type ResourceEntry, Resources } from '@arbiter/allocator';

/** What the rules read of a volume. */
export interface VolumeLike {
  role: string;
  persistenceId: string;
  disk: number;
  source?: { type: 'PATH' | 'MOUNT'; root: string } | null;
  /** Shared (Mesos's `Resource.shared`): offered and used by several tasks at once. */
  shared?: boolean;
}

/** The piece a volume is offered and used as: `disk(role, volume=id):size`. */
export function volumeResource(v: VolumeLike): ResourceEntry {
  return { ...plainDiskOf(v), volume: v.persistenceId, ...(v.shared ? { shared: true } : {}) };
}

/** The reserved disk a volume is made of (on its disk source, if any). */
export function plainDiskOf(v: VolumeLike): ResourceEntry {
  return { name: 'disk', value: v.disk, reservation: v.role, ...(v.source ? { source: v.source } : {}) };
}

/**
 * An agent's total (reservations applied) with its volumes: each volume's size of the role's
 * plain reserved disk becomes the volume's piece. A volume the reserved disk no longer covers
 * (its reservation was removed by an operator) is left out.
 */
export function withVolumes(total: Resources, volumes: readonly VolumeLike[]): Resources {
  let out = total;
  for (const v of volumes) {
    const plain = Resources.of([plainDiskOf(v)]);
    if (out.contains(plain)) out = out.minus(plain).plus(Resources.of([volumeResource(v)]));
  }
  return out;
}

const sourceKey = (s: VolumeLike['source']) => (s ? `${s.type}:${s.root}` : '');
const plainDisk = (entries: readonly ResourceEntry[], role: string, source: string): number =>
  entries
    .filter((e) => e.name === 'disk' && e.reservation === role && !e.volume && sourceKey(e.source) === source)
    .reduce((sum, e) => sum + (e.value ?? 0), 0);

/**
 * Reserved disk a role has free for new volumes on an agent (MB): its reservations' disk, less
 * its volumes and the plain reserved disk its live tasks and executors use.
 */
export function reservedDiskFree(
  reservations: ReadonlyArray<{ resources: ResourceEntry[] }>,
  volumes: readonly VolumeLike[],
  live: ReadonlyArray<{ resources: ResourceEntry[] }>,
  role: string,
  source?: VolumeLike['source'],
): number {
  const key = sourceKey(source);
  const reserved = reservations.reduce((sum, r) => sum + plainDisk(r.resources, role, key), 0);
  const inVolumes = volumes.filter((v) => v.role === role && sourceKey(v.source) === key).reduce((sum, v) => sum + v.disk, 0);
  const used = live.reduce((sum, u) => sum + plainDisk(u.resources, role, key), 0);
  return Math.max(0, Math.round((reserved - inVolumes - used) * 1000) / 1000);
}

/** The frameworks whose live tasks or executors use a volume (one entry per user). */
export function volumeUsedBy(live: ReadonlyArray<{ resources: ResourceEntry[]; frameworkId: string }>, role: string, id: string): string[] {
  return live
    .filter((u) => u.resources.some((e) => e.name === 'disk' && e.reservation === role && e.volume === id))
    .map((u) => u.frameworkId);
}
