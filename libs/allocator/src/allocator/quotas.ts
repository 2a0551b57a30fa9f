/**
 * Quota per top-level role and what each role consumes against it: unreserved non-revocable
 * scalars allocated, plus every reservation (scenario-format.md, "consumed(R)"). Answers the
 * stages' questions: unmet guarantees, the headroom they require, and how far limits cut.
 */
import type { Resources } from '../resources';
import type { CyclePath } from './cycle-path';
import { addMilli, ancestorsAndSelf, NONE, quantitiesToMilli, topLevel } from './milli';
import { AllocatorError } from './types';

export interface QuotaState {
  guarantees: Map<string, number>; // milli
  limits: Map<string, number>; // milli; absent = unlimited
}

/** A quota from quantities: refuses negative amounts and guarantees above their limits. */
export function quotaFromInput(role: string, guarantees: Record<string, number>, limits: Record<string, number>): QuotaState {
  const g = quantitiesToMilli(guarantees, `guarantees of '${role}'`);
  const l = quantitiesToMilli(limits, `limits of '${role}'`);
  for (const [name, value] of g) {
    const limit = l.get(name);
    if (limit !== undefined && limit < value) {
      throw new AllocatorError(
        'INVALID_ARGUMENT',
        `guarantee of ${name} (${value / 1000}) exceeds its limit (${limit / 1000}) for '${role}'`,
      );
    }
  }
  // A limit of zero must survive the zero-dropping above.
  for (const [name, value] of Object.entries(limits)) if (value === 0) l.set(name, 0);
  return { guarantees: g, limits: l };
}

export class Quotas {
  readonly byRole = new Map<string, QuotaState>();
  /** Per top-level role: unreserved non-revocable scalars allocated (milli). */
  private readonly consumedAllocated = new Map<string, Map<string, number>>();
  /** Per top-level role: scalar reservations on all agents (milli). */
  private readonly consumedReserved = new Map<string, Map<string, number>>();
  /** Per role: itself and its ancestors that have quota limits (cleared when quota changes). */
  private readonly limitedAncestorsCache = new Map<string, string[]>();

  set(role: string, quota: QuotaState): void {
    this.byRole.set(role, quota);
    this.limitedAncestorsCache.clear();
  }

  remove(role: string): void {
    this.byRole.delete(role);
    this.limitedAncestorsCache.clear();
  }

  /** Counts `quantities` (milli) allocated to `role` (sign 1) or given back (sign -1). */
  trackAllocated(role: string, quantities: ReadonlyMap<string, number>, sign: 1 | -1): void {
    const top = topLevel(role);
    let consumed = this.consumedAllocated.get(top);
    if (!consumed) this.consumedAllocated.set(top, (consumed = new Map<string, number>()));
    addMilli(consumed, quantities, sign);
  }

  /** Counts the reservations in an agent's total (sign 1) or stops counting them (sign -1). */
  trackReservations(total: Resources, sign: 1 | -1): void {
    for (const entry of total.reserved().scalars().entries()) {
      // reserved().scalars(): every entry has a reservation and a value.
      if (entry.reservation === undefined || entry.value === undefined) continue;
      const top = topLevel(entry.reservation);
      let consumed = this.consumedReserved.get(top);
      if (!consumed) this.consumedReserved.set(top, (consumed = new Map<string, number>()));
      addMilli(consumed, new Map([[entry.name, Math.round(entry.value * 1000) * sign]]));
    }
  }

  /** consumed(R) for a top-level role: allocated unreserved non-revocable + all reservations. */
  consumed(role: string): Map<string, number> {
    const out = new Map(this.consumedAllocated.get(role) ?? []);
    addMilli(out, this.consumedReserved.get(role) ?? new Map());
    return out;
  }

  unmetGuarantees(role: string, quota: QuotaState): Map<string, number> {
    const consumed = this.consumed(role);
    const unmet = new Map<string, number>();
    for (const [name, g] of quota.guarantees) {
      const left = g - (consumed.get(name) ?? 0);
      if (left > 0) unmet.set(name, left);
    }
    return unmet;
  }

  /** The sum of every role's unmet guarantees: what must stay free for them. */
  requiredHeadroom(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [role, quota] of this.byRole) addMilli(out, this.unmetGuarantees(role, quota));
    return out;
  }

  refreshRequiredHeadroom(into: Map<string, number>): void {
    into.clear();
    for (const [k, v] of this.requiredHeadroom()) into.set(k, v);
  }

  /** The role and its ancestors that have quota limits. */
  limitedAncestors(role: string): readonly string[] {
    if (this.byRole.size === 0) return NONE;
    let out = this.limitedAncestorsCache.get(role);
    if (!out) {
      out = ancestorsAndSelf(role).filter((path) => (this.byRole.get(path)?.limits.size ?? 0) > 0);
      this.limitedAncestorsCache.set(role, out);
    }
    return out;
  }

  /** Per name, what the role's limits (its own and every ancestor's) still allow after `extra`. */
  limitCaps(role: string, extra: ReadonlyMap<string, number>): Map<string, number> {
    const caps = new Map<string, number>();
    for (const path of this.limitedAncestors(role)) {
      const quota = this.byRole.get(path);
      if (!quota) continue; // limitedAncestors names roles with a quota
      const consumed = this.consumed(path);
      for (const [name, limit] of quota.limits) {
        const left = limit - (consumed.get(name) ?? 0) - (extra.get(name) ?? 0);
        caps.set(name, Math.min(caps.get(name) ?? Infinity, Math.max(0, left)));
      }
    }
    return caps;
  }

  /**
   * Cuts unreserved scalars to what the role's quota limits still allow after `extra`, and,
   * when headroom is required, to the surplus headroom.
   */
  cutToLimitsAndHeadroom(
    role: string,
    unreserved: Resources,
    extra: ReadonlyMap<string, number>,
    required: ReadonlyMap<string, number>,
    available: ReadonlyMap<string, number>,
    path: CyclePath,
  ): Resources {
    const caps = this.limitCaps(role, extra);
    if (required.size > 0) {
      for (const name of unreserved.scalarMilli().keys()) {
        const surplus = Math.max(0, (available.get(name) ?? 0) - (required.get(name) ?? 0));
        caps.set(name, Math.min(caps.get(name) ?? Infinity, surplus));
      }
    }
    if (caps.size === 0) return unreserved;
    return path.capScalars(unreserved, caps, true);
  }
}
