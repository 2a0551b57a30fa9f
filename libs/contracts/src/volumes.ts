/**
 * Persistent volumes (Mesos's CREATE and DESTROY): disk reserved for a role made into a named
 * volume that lives on its agent outside any sandbox and outlives the tasks that use it.
 *
 * In an accept (frameworks, on the offer's role):
 *   { type: 'CREATE',  volumes: [{ id, disk, containerPath, mode }] }   reserved disk -> volume
 *   { type: 'DESTROY', volumes: [{ id }] }                              volume -> reserved disk
 * A task (or executor) uses a volume by naming its offered piece in its resources:
 *   { name: 'disk', value: 512, reservation: 'db', volume: 'data-1' }
 * and finds it at `containerPath` (relative: in its sandbox; absolute: in its image's root
 * filesystem) with the mode asked.
 *
 *   control plane -> agent (acknowledged with a Reply):
 *     'createVolume'   CreateVolume   -> { path }   (the directory is made, or already there)
 *     'destroyVolume'  DestroyVolume  -> {}         (refused VOLUME_IN_USE while a container uses it)
 */
import { z } from 'zod';
import { Role } from './common';
import { OperationId } from './operation-feedback';

/** A volume's persistence id (Mesos's `disk.persistence.id`): unique per role on an agent. */
export const PersistenceId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, "must be letters, digits and _ . - (not starting with '.' or '-')");

/** Where a task sees the volume: a path relative to its sandbox (no `..`), or absolute in its image. */
export const VolumeContainerPath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.split('/').includes('..') && !p.includes('\0'), { message: "may not contain '..'" });

export const VolumeMode = z.enum(['RW', 'RO']);

/** The disk a volume is made on, when not the agent's root disk (a MOUNT disk's volume takes it whole). */
export const VolumeDiskSource = z.object({ type: z.enum(['PATH', 'MOUNT']), root: z.string().min(2).max(4096).startsWith('/') }).strict();
export type VolumeDiskSource = z.infer<typeof VolumeDiskSource>;
export type VolumeMode = z.infer<typeof VolumeMode>;

/** One volume a CREATE makes, on disk reserved for the offer's role. */
export const PersistentVolumeSpec = z
  .object({
    id: PersistenceId,
    /** Its size in MB, taken from the role's reserved disk. */
    disk: z.number().positive().max(1e12),
    containerPath: VolumeContainerPath,
    mode: VolumeMode.default('RW'),
    source: VolumeDiskSource.optional(),
    /** Shared (Mesos's `Resource.shared`, SHARED_RESOURCES frameworks): several tasks may use it at once. */
    shared: z.boolean().optional(),
  })
  .strict();
export type PersistentVolumeSpec = z.input<typeof PersistentVolumeSpec>;

/** `id`: feedback (UPDATE_OPERATION_STATUS), as for RESERVE and UNRESERVE. */
export const CreateOperation = z
  .object({ type: z.literal('CREATE'), id: OperationId.optional(), volumes: z.array(PersistentVolumeSpec).min(1).max(100) })
  .strict();
export const DestroyOperation = z
  .object({
    type: z.literal('DESTROY'),
    id: OperationId.optional(),
    volumes: z
      .array(z.object({ id: PersistenceId }).strict())
      .min(1)
      .max(100),
  })
  .strict();

/** The control plane tells an agent to make a volume's directory (idempotent). */
export const CreateVolume = z
  .object({
    role: Role,
    id: PersistenceId,
    containerPath: VolumeContainerPath,
    mode: VolumeMode,
    /** On a PATH disk: under its root; on a MOUNT disk: its root itself. */
    source: VolumeDiskSource.optional(),
  })
  .strict();
export type CreateVolume = z.infer<typeof CreateVolume>;
export interface CreateVolumeReply {
  /** Where the volume lives on the agent. */
  path: string;
}

/** The control plane tells an agent to remove a volume and its data. */
export const DestroyVolume = z.object({ role: Role, id: PersistenceId, source: VolumeDiskSource.optional() }).strict();
export type DestroyVolume = z.infer<typeof DestroyVolume>;
