/**
 * Mesos's persistent volumes and disk sources (Resource.disk) both ways: `disk.persistence.id`
 * is a piece's `volume`, `disk.source` (PATH or MOUNT with its root) its `source`; CREATE's and
 * DESTROY's volumes as Arbiter's operations. Pure.
 */
import { type MesosResource, PROTOCOL_ERRORS, type ResourceEntry } from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';

type MesosDisk = NonNullable<MesosResource['disk']>;
type DiskSource = NonNullable<ResourceEntry['source']>;

const unsupported = (what: string, why: string) => new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${what} is not supported: ${why}`);

/** What a Resource's disk info adds to its entry: the volume's persistence id, the disk's source. */
export function diskOf(disk: MesosDisk, where: string): Pick<ResourceEntry, 'volume' | 'source'> {
  return {
    ...(disk.persistence ? { volume: disk.persistence.id } : {}),
    ...(disk.source ? { source: sourceOf(disk.source, where) } : {}),
  };
}

/** PATH or MOUNT with its root (BLOCK and RAW disks come from resource providers, which Arbiter has not). */
function sourceOf(s: NonNullable<MesosDisk['source']>, where: string): DiskSource {
  if (s.type !== 'PATH' && s.type !== 'MOUNT') throw unsupported(`${where}: disk.source type ${s.type}`, 'disks are ROOT, PATH or MOUNT');
  const root = s.type === 'MOUNT' ? s.mount?.root : s.path?.root;
  if (!root?.startsWith('/'))
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      `${where}: a ${s.type} disk source needs an absolute ${s.type.toLowerCase()}.root`,
    );
  return { type: s.type, root };
}

/** A piece's disk info for Mesos: its volume (with what the master knows of it) and its disk's source. */
export function mesosDisk(
  e: ResourceEntry,
  volume?: { containerPath: string; mode: string; principal: string },
): Record<string, unknown> | undefined {
  const source = e.source && { type: e.source.type, [e.source.type === 'MOUNT' ? 'mount' : 'path']: { root: e.source.root } };
  if (!e.volume) return source ? { source } : undefined;
  return {
    persistence: { id: e.volume, ...(volume ? { principal: volume.principal } : {}) },
    volume: { container_path: volume?.containerPath ?? e.volume, mode: volume?.mode ?? 'RW' },
    ...(source ? { source } : {}),
  };
}

/** A CREATE's or DESTROY's volume (`entry`: the resource as read): disk with `disk.persistence.id` (and, for CREATE, `disk.volume`). */
export function volumeOf(
  r: MesosResource,
  entry: ResourceEntry,
  where: string,
): { id: string; disk: number; containerPath: string; mode: 'RW' | 'RO'; source?: DiskSource; shared?: boolean } {
  if (r.name !== 'disk' || entry.value === undefined || !entry.volume)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: a volume is a 'disk' scalar with disk.persistence.id`);
  return {
    id: entry.volume,
    disk: entry.value,
    containerPath: r.disk?.volume?.container_path ?? '',
    mode: r.disk?.volume?.mode === 'RO' ? 'RO' : 'RW',
    ...(entry.source ? { source: entry.source } : {}),
    ...(entry.shared ? { shared: true } : {}),
  };
}
