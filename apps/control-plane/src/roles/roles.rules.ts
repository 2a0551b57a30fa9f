/** The rules of role paths and quotas, as pure functions. */
import { Role } from '@arbiter/contracts';
import { checkField } from '../errors/errors.validation';
import type { ScalarMap } from './quota.entity';

/** Largest weight or quota amount accepted: beyond it is a typo, not a configuration. */
export const MAX_WEIGHT = 1_000_000;
export const MAX_AMOUNT = 1e12;

/** Checks a role path (the rules of the wire contracts); the message names the field. */
export function checkRole(role: unknown, field: string): string {
  return checkField(Role, role, field);
}

/** The role and every ancestor: `a/b/c` -> a, a/b, a/b/c. */
export function withAncestors(role: string): string[] {
  const parts = role.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Resources the guarantees need beyond capacity, by name (empty when they fit). */
export function overCapacity(
  guarantees: ScalarMap[],
  capacity: ScalarMap,
): Array<{ resource: string; requested: number; available: number }> {
  const sum: ScalarMap = {};
  for (const g of guarantees) for (const [k, v] of Object.entries(g)) sum[k] = (sum[k] ?? 0) + v;
  return Object.entries(sum)
    .filter(([k, v]) => v > (capacity[k] ?? 0) + 1e-9)
    .map(([resource, requested]) => ({ resource, requested: Math.round(requested * 1000) / 1000, available: capacity[resource] ?? 0 }));
}
