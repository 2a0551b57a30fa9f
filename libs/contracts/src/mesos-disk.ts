/**
 * Mesos's Resource.DiskInfo (mesos.proto) in its JSON mapping: a persistent volume's
 * `persistence` and `volume`, and the disk's `source` (ROOT when absent, PATH or MOUNT).
 * What Arbiter does not support (BLOCK and RAW sources, resource providers' fields) is accepted
 * here and refused by name by the control plane (docs/mesos-compat.md).
 */
import { z } from 'zod';

const text = (max = 4096) => z.string().max(max);

export const MesosDiskInfo = z
  .object({
    persistence: z
      .object({ id: text(128), principal: text(255).optional() })
      .strict()
      .optional(),
    volume: z
      .object({
        container_path: text(1024),
        mode: z.enum(['RW', 'RO']).optional(),
        host_path: text().optional(),
        image: z.unknown().optional(),
        source: z.unknown().optional(),
      })
      .strict()
      .optional(),
    source: z
      .object({
        type: z.enum(['UNKNOWN', 'PATH', 'MOUNT', 'BLOCK', 'RAW']),
        path: z.object({ root: text().optional() }).strict().optional(),
        mount: z.object({ root: text().optional() }).strict().optional(),
        vendor: z.unknown().optional(),
        id: z.unknown().optional(),
        metadata: z.unknown().optional(),
        profile: z.unknown().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
