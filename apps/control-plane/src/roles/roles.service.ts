/**
 * Roles, weights and quota (Mesos's GET_ROLES, GET_WEIGHTS/UPDATE_WEIGHTS,
 * GET_QUOTA/UPDATE_QUOTA). Updates are all or nothing; every change is audited in its own
 * transaction and announced to the allocation loop once committed.
 */
import { AclsService } from '../acls/acls.service';
import { Injectable } from '@nestjs/common';
import { AllocationUsageRepository } from '../master/allocation-usage.repository';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { parseResourcesWithRule, scalarMap, sumScalars } from '../common/resources.dto';
import { Database, lockDomain, LockDomain } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../leadership/cluster-events';
import type { ScalarMap } from './quota.entity';
import type { QuotaDto, QuotaInputDto, RoleDto, WeightDto } from './roles.dto';
import { RolesErrorCode } from './roles.errors';
import { RolesRepository } from './roles.repository';
import { checkRole, MAX_AMOUNT, overCapacity, withAncestors } from './roles.rules';

@Injectable()
export class RolesService {
  constructor(
    private readonly db: Database,
    private readonly repo: RolesRepository,
    private readonly usage: AllocationUsageRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
  ) {}

  /** Every role the view_roles ACL lets the actor see. */
  async roles(actor?: Actor): Promise<RoleDto[]> {
    if (actor) return (await this.roles()).filter((r) => this.acls.allows(actor, 'view_roles', r.path));
    const tx = this.db.manager;
    const [{ rows, quotas, frameworks, reservations }, usage] = await Promise.all([this.repo.overview(tx), this.usage.usageByRole(tx)]);
    const paths = new Set<string>();
    const add = (role: string) => withAncestors(role).forEach((r) => paths.add(r));
    rows.forEach((r) => add(r.path));
    quotas.forEach((q) => add(q.role));
    frameworks.forEach((f) => f.roles.forEach(add));
    reservations.forEach((r) => add(r.role));
    usage.forEach((_, role) => add(role));
    const inSubtree = (r: string, role: string) => r === role || r.startsWith(`${role}/`);
    // A role holds what it and its descendants hold (usage comes summed per role from SQL).
    const allocated = (role: string) =>
      sumScalars(
        [...usage].filter(([r]) => inSubtree(r, role)).map(([, sums]) => Object.entries(sums).map(([name, value]) => ({ name, value }))),
      );
    const reserved = (role: string) => sumScalars(reservations.filter((r) => inSubtree(r.role, role)).map((r) => r.resources));
    return [...paths].sort().map((path) => {
      const q = quotas.find((x) => x.role === path);
      return {
        path,
        weight: rows.find((r) => r.path === path)?.weight ?? 1,
        quota: q ? { role: q.role, guarantees: q.guarantees, limits: q.limits } : null,
        allocated: allocated(path),
        reserved: reserved(path),
        frameworks: frameworks.filter((f) => f.roles.includes(path)).map((f) => f.id),
      };
    });
  }

  /** Weights set explicitly; with an actor, of the roles the view_roles ACL lets it see. */
  async weights(actor?: Actor): Promise<WeightDto[]> {
    return (await this.repo.roles(this.db.manager))
      .filter((r) => !actor || this.acls.allows(actor, 'view_roles', r.path))
      .map((r) => ({ role: r.path, weight: r.weight }));
  }

  async updateWeights(input: WeightDto[], actor: Actor): Promise<WeightDto[]> {
    await this.acls.authorize(
      actor,
      'update_weights',
      input.map((w) => w.role),
      'update weights',
    );
    const seen = new Set<string>();
    input.forEach((w, i) => {
      checkRole(w.role, `weights.${i}.role`);
      if (!(w.weight > 0))
        throw new ArbiterException(
          CommonErrorCode.VALIDATION_FAILED,
          `invalid request: weights.${i}.weight must be a positive number (got ${w.weight})`,
          { errors: [{ field: `weights.${i}.weight`, problems: ['must be a positive number'] }] },
        );
      if (seen.has(w.role))
        throw new ArbiterException(RolesErrorCode.ROLE_REPEATED, `role '${w.role}' appears more than once (weights.${i})`, {
          role: w.role,
          index: i,
        });
      seen.add(w.role);
    });
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      for (const w of input) {
        const before = await this.repo.ensureRole(tx, w.role, new Date(), w.weight);
        await this.audit.record(tx, actor, {
          action: 'weights.update',
          targetType: 'role',
          targetId: w.role,
          before: { weight: before ?? 1 },
          after: { weight: w.weight },
        });
      }
    });
    this.events.emit({ type: 'weights.updated', weights: Object.fromEntries(input.map((w) => [w.role, w.weight])) });
    return this.weights(actor);
  }

  /** Quotas; with an actor, of the roles the view_roles ACL lets it see. */
  async quotas(actor?: Actor): Promise<QuotaDto[]> {
    return (await this.repo.quotas(this.db.manager))
      .filter((q) => !actor || this.acls.allows(actor, 'view_roles', q.role))
      .map((q) => ({
        role: q.role,
        guarantees: q.guarantees,
        limits: q.limits,
      }));
  }

  async updateQuotas(input: QuotaInputDto[], force: boolean, actor: Actor): Promise<QuotaDto[]> {
    await this.acls.authorize(
      actor,
      'update_quotas',
      input.map((q) => q.role),
      'update quotas',
    );
    const seen = new Set<string>();
    const parsed = input.map((q, i) => {
      const role = checkRole(q.role, `quotas.${i}.role`);
      if (role.includes('/'))
        throw new ArbiterException(
          RolesErrorCode.QUOTA_HIERARCHY_VIOLATION,
          `quota applies to top-level roles; '${role}' is nested (quotas.${i}.role). Set it on '${role.split('/')[0]}'`,
          { role, index: i },
        );
      if (seen.has(role))
        throw new ArbiterException(RolesErrorCode.ROLE_REPEATED, `role '${role}' appears more than once (quotas.${i})`, { role, index: i });
      seen.add(role);
      const amounts = (value: unknown, field: string): ScalarMap => {
        if (value === undefined) return {};
        const map = scalarMap(parseResourcesWithRule(value, { scalarsOnly: true }));
        for (const [k, v] of Object.entries(map)) {
          if (v > MAX_AMOUNT)
            throw new ArbiterException(
              CommonErrorCode.VALIDATION_FAILED,
              `invalid request: quotas.${i}.${field} ${k} ${v} is beyond any cluster (at most ${MAX_AMOUNT})`,
              { errors: [{ field: `quotas.${i}.${field}`, problems: [`${k} too large`] }] },
            );
        }
        return map;
      };
      const guarantees = amounts(q.guarantees, 'guarantees');
      const limits = amounts(q.limits, 'limits');
      // A limit given as zero survives the shorthand parser dropping zeros.
      if (q.limits && typeof q.limits === 'object' && !Array.isArray(q.limits))
        for (const [k, v] of Object.entries(q.limits as Record<string, unknown>)) if (v === 0) limits[k] = 0;
      for (const [name, g] of Object.entries(guarantees)) {
        const limit = limits[name] as number | undefined;
        if (limit !== undefined && g > limit) {
          throw new ArbiterException(
            RolesErrorCode.QUOTA_GUARANTEE_EXCEEDS_LIMIT,
            `the guarantee of ${name} (${g}) exceeds its limit (${limits[name]}) for role '${role}'`,
            { role, resource: name, guarantee: g, limit: limits[name] },
          );
        }
      }
      return { role, guarantees, limits };
    });
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      const existing = await this.repo.quotas(tx);
      const after = new Map(existing.map((q) => [q.role, q.guarantees]));
      for (const q of parsed) after.set(q.role, q.guarantees);
      // Only guarantees can exceed the cluster (reading its capacity reads every agent).
      if (!force && [...after.values()].some((g) => Object.values(g).some((v) => v > 0))) {
        const capacity = await this.repo.capacity(tx);
        const over = overCapacity([...after.values()], capacity);
        if (over.length) {
          const o = over[0];
          throw new ArbiterException(
            RolesErrorCode.QUOTA_EXCEEDS_CAPACITY,
            `the guarantees would need ${o.resource} ${o.requested} but the cluster has ${o.available}; lower them or send force=true to set them anyway`,
            { over },
          );
        }
      }
      const now = new Date();
      for (const q of parsed) {
        const before = existing.find((e) => e.role === q.role);
        await this.repo.ensureRole(tx, q.role, now);
        await this.repo.saveQuota(tx, { role: q.role, guarantees: q.guarantees, limits: q.limits, updatedAt: now });
        await this.audit.record(tx, actor, {
          action: 'quota.update',
          targetType: 'role',
          targetId: q.role,
          before: before ? { guarantees: before.guarantees, limits: before.limits } : null,
          after: { guarantees: q.guarantees, limits: q.limits },
        });
      }
    });
    for (const q of parsed) this.events.emit({ type: 'quota.updated', role: q.role });
    return this.quotas(actor);
  }

  async removeQuota(role: string, actor: Actor): Promise<void> {
    checkRole(role, 'role');
    await this.acls.authorize(actor, 'update_quotas', role, `remove the quota of '${role}'`);
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.ROLES);
      const before = await this.repo.quota(tx, role);
      if (!before)
        throw new ArbiterException(RolesErrorCode.QUOTA_NOT_FOUND, `role '${role}' has no quota; GET /api/v1/quota lists them`, { role });
      await this.repo.deleteQuota(tx, role);
      await this.audit.record(tx, actor, {
        action: 'quota.remove',
        targetType: 'role',
        targetId: role,
        before: { guarantees: before.guarantees, limits: before.limits },
        after: null,
      });
    });
    this.events.emit({ type: 'quota.removed', role });
  }
}
