/** A what-if question on the live cluster (POST /api/v1/simulate): the change to try. */
import { z } from 'zod';
import { Id, Resources, Role } from './common';

const ResourceName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, 'must be a resource name such as cpus or mem');
const Quantities = z.record(ResourceName, z.number().nonnegative().max(1e12));

export const WhatIfChange = z
  .object({
    /** New weights per role. */
    weights: z.record(Role, z.number().positive().max(1e6)).optional(),
    /** New quota per top-level role; null removes it. */
    quotas: z.record(Role, z.object({ guarantees: Quantities, limits: Quantities.optional() }).strict().nullable()).optional(),
    /** Agents to add: `count` copies of one machine. */
    addAgents: z
      .array(
        z
          .object({
            hostname: z.string().min(1).max(253),
            resources: Resources.min(1),
            count: z.number().int().min(1).max(10_000).optional(),
          })
          .strict(),
      )
      .max(100)
      .optional(),
    /** Agents to take away, by id or hostname. */
    removeAgents: z.array(z.string().min(1).max(253)).max(10_000).optional(),
    /** Frameworks that would join. */
    addFrameworks: z
      .array(
        z.object({ id: Id, roles: z.array(Role).min(1).max(100), capabilities: z.array(z.string().max(64)).max(10).optional() }).strict(),
      )
      .max(10_000)
      .optional(),
    /** Frameworks to take away, by id. */
    removeFrameworks: z.array(Id).max(10_000).optional(),
    /** What a framework (by id) would hold at most; it declines offers past it. */
    demand: z.record(Id, Quantities).optional(),
  })
  .strict();
export type WhatIfChange = z.infer<typeof WhatIfChange>;

/** Most cycles a what-if runs (each runs twice, without and with the change, on the leader). */
export const WHAT_IF_MAX_CYCLES = 10;

/**
 * How large a what-if may be (POST /api/v1/simulate refuses more with SIMULATION_TOO_LARGE):
 * what is useful to ask, and what a worker answers in seconds.
 */
export const WHAT_IF_LIMITS = {
  /** Agents added, every entry's `count` together. */
  addedAgents: 10_000,
  /** Frameworks added. */
  addedFrameworks: 100,
} as const;

/** What a change adds, against WHAT_IF_LIMITS. */
export function whatIfSize(change: WhatIfChange): { addedAgents: number; addedFrameworks: number } {
  return {
    addedAgents: (change.addAgents ?? []).reduce((n, a) => n + (a.count ?? 1), 0),
    addedFrameworks: change.addFrameworks?.length ?? 0,
  };
}
