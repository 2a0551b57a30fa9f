/**
 * An agent and its resource bookkeeping: its total, what is offered or allocated on it (by
 * framework and role) and what is left available. As Mesos's allocator keeps an agent's
 * available resources behind `increaseAvailable`/`decreaseAvailable` with checks, these change
 * only through the methods below, which keep `allocated + available = total` (available
 * clamped at zero on an over-allocated agent) and refuse to offer what is not available or to
 * give back what is not held.
 */
import { Resources } from '../resources';
import type { PassedBy } from './fair-share-stage';
import type { AgentFilters } from './offer-filters';
import { AllocatorError } from './types';

export class Agent {
  hostname: string;
  activated: boolean;
  deactivatedForMaintenance = false;
  unavailabilityStart?: number;
  /** Frameworks (by id) sent an inverse offer for the scheduled unavailability. */
  readonly inverseOffered = new Set<string>();
  /**
   * Per role, the frameworks that passed the agent by in the fair-share stage, and whether all
   * did: while nothing that depended on has changed, they would again (fast path only).
   */
  readonly passedBy = new Map<string, PassedBy>();
  /** frameworkId -> role -> resources. */
  private readonly held = new Map<string, Map<string, Resources>>();
  private totalRes: Resources;
  private allocatedRes = Resources.empty();
  private availableRes: Resources;
  /** `available` before the last offer on the agent (kept by identity, see `increaseAvailable`). */
  private availableBefore?: Resources;
  /** `allocated` is within `total` (not over-allocated) and the agent has nothing shared. */
  private allocatedFits: boolean;
  private isPlain: boolean;
  private sharedHeld: boolean;
  private gpus: boolean;
  /** Roles whose reservations on the agent are refined (Mesos's stacks of two layers or more). */
  private refined: ReadonlySet<string>;

  constructor(
    readonly id: string,
    /** A small integer unique among the allocator's agents, for per-cycle tables indexed by agent. */
    readonly slot: number,
    total: Resources,
    /** Offer filters on this agent (shared with the allocator's filters by agent id). */
    readonly filters: AgentFilters,
    options: { hostname?: string; activated?: boolean; refinedReservations?: Iterable<string> } = {},
  ) {
    this.hostname = options.hostname ?? id;
    this.activated = options.activated ?? true;
    this.totalRes = total;
    this.availableRes = total;
    this.isPlain = total.isPlain();
    this.sharedHeld = !total.shared().isEmpty();
    this.allocatedFits = !this.sharedHeld;
    this.gpus = total.get('gpus') > 0;
    this.refined = new Set(options.refinedReservations ?? []);
  }

  get total(): Resources {
    return this.totalRes;
  }
  /** Sum of everything offered or allocated on the agent. */
  get allocated(): Resources {
    return this.allocatedRes;
  }
  /** total - allocated, kept current by every change (the hot path reads it per framework). */
  get available(): Resources {
    return this.availableRes;
  }
  /** Total has only unreserved, non-revocable, non-shared pieces: offers need no splitting. */
  get plain(): boolean {
    return this.isPlain;
  }
  get hasShared(): boolean {
    return this.sharedHeld;
  }
  get hasGpus(): boolean {
    return this.gpus;
  }
  /** Roles whose reservations on the agent are refined: offered only to frameworks with RESERVATION_REFINEMENT. */
  get refinedReservations(): ReadonlySet<string> {
    return this.refined;
  }

  /** Sets the roles whose reservations are refined; whether that changed them. */
  setRefinedReservations(roles: Iterable<string>): boolean {
    const next = new Set(roles);
    if (next.size === this.refined.size && [...next].every((r) => this.refined.has(r))) return false;
    this.refined = next;
    return true;
  }

  /** What the framework holds on the agent under the role. */
  heldBy(frameworkId: string, role: string): Resources {
    return this.held.get(frameworkId)?.get(role) ?? Resources.empty();
  }

  /** Whether the framework holds anything on the agent. */
  holds(frameworkId: string): boolean {
    return this.held.has(frameworkId);
  }

  /** Everything offered or allocated on the agent: framework id -> role -> resources. */
  allocations(): ReadonlyMap<string, ReadonlyMap<string, Resources>> {
    return this.held;
  }

  /**
   * Offers `resources` to the framework under the role: they must be available (shared
   * volumes aside: every framework that may take one is offered a copy).
   */
  decreaseAvailable(frameworkId: string, role: string, resources: Resources): void {
    const whole = resources === this.availableRes;
    if (!whole && !this.availableRes.contains(this.sharedHeld ? resources.nonShared() : resources)) {
      throw new AllocatorError(
        'INSUFFICIENT_RESOURCES',
        `agent '${this.id}' has not ${resources.toString()} available (available: ${this.availableRes.toString() || 'nothing'})`,
      );
    }
    // Everything available taken on an agent that fits: allocated is now its total.
    this.take(frameworkId, role, resources, whole && this.allocatedFits);
  }

  /**
   * Records resources already in use when the agent is added (tasks it runs): unlike an
   * offer they need not be available, so the agent may start over-allocated.
   */
  addUsed(frameworkId: string, role: string, resources: Resources): void {
    const whole = resources === this.availableRes && this.allocatedFits;
    if (!whole) this.allocatedFits &&= this.availableRes.contains(resources);
    this.take(frameworkId, role, resources, whole);
  }

  /** Gives back resources the framework holds on the agent under the role (they must be held). */
  increaseAvailable(frameworkId: string, role: string, resources: Resources): void {
    const byRole = this.held.get(frameworkId);
    const before = byRole?.get(role);
    if (!byRole || !before?.contains(resources)) {
      throw new AllocatorError(
        'INVALID_ARGUMENT',
        `framework '${frameworkId}' does not hold ${resources.toString()} on agent '${this.id}' under '${role}'`,
      );
    }
    const after = before.minus(resources);
    if (after.isEmpty()) byRole.delete(role);
    else byRole.set(role, after);
    if (byRole.size === 0) this.held.delete(frameworkId);
    this.allocatedRes = this.allocatedRes.minus(resources);
    if (!this.allocatedFits) this.allocatedFits = !this.sharedHeld && this.totalRes.contains(this.allocatedRes);
    // A recovery recomputes (the agent may have been over-allocated after a smaller total).
    // When it brings back what was there before the last offer, that value is kept (it is
    // immutable): what was remembered about it (filters that cover it, frameworks that passed
    // it by) still holds.
    const available = this.totalRes.minus(this.allocatedRes);
    const last = this.availableBefore;
    this.availableRes = last !== undefined && available.equals(last) ? last : available;
  }

  /** A new total; what is allocated stays, so the agent may end up over-allocated. */
  setTotal(total: Resources): void {
    this.totalRes = total;
    this.gpus = total.get('gpus') > 0;
    this.isPlain = total.isPlain();
    this.sharedHeld = !total.shared().isEmpty();
    this.allocatedFits = !this.sharedHeld && total.contains(this.allocatedRes);
    this.availableRes = total.minus(this.allocatedRes);
  }

  /** Nothing left on the agent for anyone this cycle (shared volumes stay offerable). */
  exhausted(): boolean {
    return this.availableRes.isEmpty() && !this.sharedHeld;
  }

  /** Whether offering `resources` leaves the agent exhausted (asked before the offer). */
  takesAll(resources: Resources): boolean {
    if (this.sharedHeld) return false;
    return resources === this.availableRes || this.availableRes.minus(resources).isEmpty();
  }

  private take(frameworkId: string, role: string, resources: Resources, allocatedIsTotal: boolean): void {
    let byRole = this.held.get(frameworkId);
    if (!byRole) this.held.set(frameworkId, (byRole = new Map<string, Resources>()));
    const after = (byRole.get(role) ?? Resources.empty()).plus(resources);
    if (after.isEmpty()) byRole.delete(role);
    else byRole.set(role, after);
    if (byRole.size === 0) this.held.delete(frameworkId);
    this.allocatedRes = allocatedIsTotal ? this.totalRes : this.allocatedRes.plus(resources);
    this.availableBefore = this.availableRes;
    this.availableRes = this.availableRes.minus(resources);
  }
}
