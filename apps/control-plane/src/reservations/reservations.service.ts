/**
 * Dynamic reservations (Mesos's RESERVE_RESOURCES / UNRESERVE_RESOURCES): an agent's free,
 * unreserved resources set aside for a role. Reserving takes only what is free (not reserved,
 * not used by live tasks or outstanding offers); unreserving is refused while the role uses
 * the reserved resources on that agent. Checks and changes run under one advisory lock, so
 * concurrent requests cannot both take the last free cpus. Operators (REST) and frameworks
 * (RESERVE and UNRESERVE in an accept) go through the same lock, rules and audit entries.
 */
import { AclsService } from '../acls/acls.service';
import { PrincipalKind } from '../auth/principal.entity';
import { Injectable } from '@nestjs/common';
import { Resources } from '@arbiter/allocator';
import { Role } from '@arbiter/contracts';
import { type AgentEntity, AgentStatus } from '../agents/agent.entity';
import { AgentsErrorCode } from '../agents/agents.errors';
import { AuthErrorCode } from '../auth/auth.errors';
import { AllocationUsageRepository } from '../master/allocation-usage.repository';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import type { Page } from '../common/pagination.dto';
import { parseResourcesWithRule } from '../common/resources.dto';
import { Database, lockDomain, LockDomain, type Tx } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { checkField } from '../errors/errors.validation';
import { ClusterEvents } from '../leadership/cluster-events';
import type { ReservationEntity, ReservationLayer } from './reservation.entity';
import { type CreateReservationDto, type ReservationDto, toReservationDto } from './reservations.dto';
import { ReservationsErrorCode } from './reservations.errors';
import { ReservationsRepository } from './reservations.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A framework's RESERVE or UNRESERVE, checked against its offers by the caller. */
interface FrameworkReservationOp {
  type: 'RESERVE' | 'UNRESERVE';
  resources: Resources;
  /** RESERVE refining these resources, reserved for an ancestor of the role. */
  source?: Resources;
}

/** What `take` took from one reservation. */
interface Taken {
  row: ReservationEntity;
  take: Resources;
}

@Injectable()
export class ReservationsService {
  constructor(
    private readonly db: Database,
    private readonly repo: ReservationsRepository,
    private readonly usage: AllocationUsageRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
  ) {}

  async list(filter: { agentId?: string; role?: string }, limit: number, offset: number): Promise<Page<ReservationDto>> {
    const [rows, total] = await this.repo.list(this.db.manager, filter, limit, offset);
    return { items: rows.map(toReservationDto), total, limit, offset };
  }

  async get(id: string): Promise<ReservationDto> {
    return toReservationDto(await this.require(this.db.manager, id));
  }

  private async require(tx: Tx, id: string): Promise<ReservationEntity> {
    const row = UUID.test(id) ? await this.repo.find(tx, id) : null;
    if (!row)
      throw new ArbiterException(
        ReservationsErrorCode.RESERVATION_NOT_FOUND,
        `no reservation with id '${id}'; GET /api/v1/reservations lists them`,
        { id },
      );
    return row;
  }

  /**
   * What is free to reserve on an agent: unreserved total minus reservations and what live tasks
   * use. Resources in outstanding offers count as free: the allocation loop rescinds the
   * agent's offers when its reservations change (as Mesos does for operator reservations).
   */
  private async free(tx: Tx, agent: AgentEntity): Promise<Resources> {
    let free = Resources.of(agent.resources).unreserved();
    for (const r of await this.repo.onAgent(tx, agent.id)) free = free.minus(Resources.of(r.resources).withReservation(undefined));
    for (const u of await this.usage.liveTasks(tx, { agentId: agent.id })) free = free.minus(Resources.of(u.resources).unreserved());
    return free;
  }

  async create(input: CreateReservationDto, actor: Actor): Promise<ReservationDto> {
    const role = checkField(Role, input.role, 'role');
    await this.acls.authorize(actor, 'reserve_resources', role, `reserve resources for role '${role}'`);
    const refines = input.refines === undefined ? undefined : checkField(Role, input.refines, 'refines');
    if (refines !== undefined && !role.startsWith(`${refines}/`))
      throw new ArbiterException(
        CommonErrorCode.VALIDATION_FAILED,
        `invalid request: refines ('${refines}') must be a strict ancestor of role ('${role}'), as in refining 'eng' to 'eng/ml'`,
        { errors: [{ field: 'refines', problems: ['must be a strict ancestor of role'] }] },
      );
    const wanted = parseResourcesWithRule(input.resources, { unreservedOnly: true, nonEmpty: true });
    const labels = input.labels ?? {};
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v !== 'string' || k.length > 128 || v.length > 1024)
        throw new ArbiterException(
          CommonErrorCode.VALIDATION_FAILED,
          `invalid request: labels.${k} must be a string of at most 1024 characters`,
          { errors: [{ field: `labels.${k}`, problems: ['must be a string'] }] },
        );
    }
    const saved = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const agent = await this.repo.agent(tx, input.agentId);
      if (!agent)
        throw new ArbiterException(AgentsErrorCode.AGENT_NOT_FOUND, `no agent with id '${input.agentId}'; GET /api/v1/agents lists them`, {
          agentId: input.agentId,
        });
      if (agent.status === AgentStatus.GONE)
        throw new ArbiterException(AgentsErrorCode.AGENT_GONE, `agent ${agent.id} (${agent.hostname}) is marked gone`, {
          agentId: agent.id,
        });
      if (refines !== undefined) {
        const [made] = await this.refine(tx, actor, agent.id, refines, role, wanted, { checkUsage: true });
        return made;
      }
      const free = await this.free(tx, agent);
      if (!free.contains(wanted)) {
        throw new ArbiterException(
          ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES,
          `agent ${agent.hostname} has ${free.toString() || 'nothing'} free to reserve; ${wanted.toString()} does not fit`,
          { requested: wanted.toString(), free: free.toString() },
        );
      }
      return this.insert(tx, actor, { agentId: agent.id, role, resources: wanted.withReservation(role), labels });
    });
    this.events.emit({ type: 'reservation.created', agentId: saved.agentId, reservationId: saved.id });
    return toReservationDto(saved);
  }

  async remove(id: string, actor: Actor): Promise<void> {
    const target = await this.require(this.db.manager, id);
    await this.acls.authorize(actor, 'unreserve_resources', target.principal, `remove reservation ${id}`);
    const removed = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const row = await this.require(tx, id);
      // What the role uses of its reservations on this agent must still fit in what remains.
      const remaining = (await this.repo.onAgent(tx, row.agentId, row.role))
        .filter((r) => r.id !== row.id)
        .reduce((s, r) => s.plus(Resources.of(r.resources)), Resources.empty());
      // Persistent volumes made of the role's reserved disk count as used.
      const inUse = (await this.usage.liveTasks(tx, { agentId: row.agentId })).reduce(
        (s, u) => s.plus(Resources.of(u.resources).reserved(row.role)),
        Resources.of(await this.usage.volumeDisk(tx, row.agentId, row.role)),
      );
      if (!inUse.isEmpty() && !remaining.contains(inUse)) {
        throw new ArbiterException(
          ReservationsErrorCode.RESERVATION_IN_USE,
          `role '${row.role}' uses ${inUse.toString()} of its reservations on this agent; kill those tasks (and destroy its volumes) before unreserving`,
          { inUse: inUse.toString() },
        );
      }
      await this.repo.delete(tx, row.id);
      await this.audit.record(tx, actor, {
        action: 'reservation.remove',
        targetType: 'reservation',
        targetId: row.id,
        before: toReservationDto(row),
        after: null,
      });
      const restored = await this.popLayer(tx, actor, { row, take: Resources.of(row.resources) });
      return { row, restored };
    });
    this.events.emit({ type: 'reservation.removed', agentId: removed.row.agentId, reservationId: removed.row.id });
    if (removed.restored)
      this.events.emit({ type: 'reservation.created', agentId: removed.row.agentId, reservationId: removed.restored.id });
  }

  /**
   * A framework's RESERVE and UNRESERVE operations on resources it was offered (the caller has
   * checked them against the offers): applied in one transaction under the same lock as the
   * operator API, each change with its audit entry, with `within` (closing the offers) in the
   * same transaction. RESERVE sets aside what it names for `role`; UNRESERVE shrinks the role's
   * reservations on the agent by the amount named, newest first, each only where the ACL
   * `unreserve_resources` lets the framework's principal unreserve what that reservation's
   * principal reserved (as Mesos checks UNRESERVE against the reservation's principal).
   */
  async applyForFramework(
    framework: { id: string; actor?: Actor },
    agentId: string,
    role: string,
    ops: FrameworkReservationOp[],
    within: (tx: Tx) => Promise<void>,
  ): Promise<void> {
    // Recorded under the framework's principal (as Mesos's Resource.reservation.principal), so that
    // ACLs naming the principal match its reservations; a framework without one keeps its id.
    const actor: Actor = framework.actor ?? {
      principalId: null,
      name: `framework:${framework.id}`,
      kind: PrincipalKind.FRAMEWORK,
      tokenId: null,
      requestId: null,
    };
    const created: string[] = [];
    const shrunk: string[] = [];
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      await within(tx);
      for (const op of ops) {
        if (op.type === 'RESERVE' && op.source) {
          const from = op.source.reserved().entries()[0]?.reservation ?? '';
          const made = await this.refine(tx, actor, agentId, from, role, op.source.withReservation(undefined), { checkUsage: false });
          created.push(...made.map((r) => r.id));
          shrunk.push(...made.flatMap((r) => r.refinedFrom));
        } else if (op.type === 'RESERVE') {
          const reserved = op.resources.reserved().isEmpty() ? op.resources.withReservation(role) : op.resources;
          created.push((await this.insert(tx, actor, { agentId, role, resources: reserved, labels: {} })).id);
        } else {
          const taken = await this.take(tx, actor, agentId, role, op.resources, { unreserveAcl: true });
          shrunk.push(...taken.map((t) => t.row.id));
          for (const t of taken) {
            const restored = await this.popLayer(tx, actor, t);
            if (restored) created.push(restored.id);
          }
        }
      }
    });
    for (const reservationId of created) this.events.emit({ type: 'reservation.created', agentId, reservationId });
    for (const reservationId of shrunk) this.events.emit({ type: 'reservation.removed', agentId, reservationId });
  }

  private async insert(
    tx: Tx,
    actor: Actor,
    r: { agentId: string; role: string; resources: Resources; labels: Record<string, string>; refines?: ReservationLayer[] },
    principal = actor.name,
  ): Promise<ReservationEntity> {
    const row = await this.repo.insert(tx, {
      agentId: r.agentId,
      role: r.role,
      resources: r.resources.toJSON(),
      labels: r.labels,
      principal,
      refines: r.refines ?? [],
      createdAt: new Date(),
    });
    await this.audit.record(tx, actor, {
      action: 'reservation.create',
      targetType: 'reservation',
      targetId: row.id,
      before: null,
      after: toReservationDto(row),
    });
    return row;
  }

  /**
   * Refines `amount` (unreserved form) of `from`'s reservations on the agent into reservations
   * for `role`, a strict descendant: each reservation taken from keeps its layer below the new
   * one. With `checkUsage`, what `from` uses of its reservations there must still fit.
   */
  private async refine(
    tx: Tx,
    actor: Actor,
    agentId: string,
    from: string,
    role: string,
    amount: Resources,
    opts: { checkUsage: boolean },
  ): Promise<Array<ReservationEntity & { refinedFrom: string }>> {
    if (!role.startsWith(`${from}/`))
      throw new ArbiterException(
        ReservationsErrorCode.RESERVATION_REFINEMENT_INVALID,
        `a refinement reserves for a strict descendant of the role it refines: '${role}' does not refine '${from || 'unreserved resources'}'`,
        { role, refines: from },
      );
    const taken = await this.take(tx, actor, agentId, from, amount.withReservation(from), { unreserveAcl: false });
    if (opts.checkUsage) {
      const remaining = (await this.repo.onAgent(tx, agentId, from)).reduce((s, r) => s.plus(Resources.of(r.resources)), Resources.empty());
      const inUse = (await this.usage.liveTasks(tx, { agentId })).reduce(
        (s, u) => s.plus(Resources.of(u.resources).reserved(from)),
        Resources.empty(),
      );
      if (!inUse.isEmpty() && !remaining.contains(inUse))
        throw new ArbiterException(
          ReservationsErrorCode.RESERVATION_IN_USE,
          `role '${from}' uses ${inUse.toString()} of its reservations on this agent; they cannot be refined`,
          { inUse: inUse.toString() },
        );
    }
    const made: Array<ReservationEntity & { refinedFrom: string }> = [];
    for (const { row, take } of taken) {
      const refines = [...row.refines, { role: row.role, principal: row.principal }];
      const resources = take.withReservation(role);
      made.push({ ...(await this.insert(tx, actor, { agentId, role, resources, labels: {}, refines })), refinedFrom: row.id });
    }
    return made;
  }

  /** After a refined reservation gave up `take`: it goes back to the layer below (resolves with its new row), else nothing. */
  private async popLayer(tx: Tx, actor: Actor, { row, take }: Taken): Promise<ReservationEntity | undefined> {
    const layers = row.refines;
    if (layers.length === 0) return undefined;
    const below = layers[layers.length - 1];
    const resources = take.withReservation(below.role);
    return this.insert(
      tx,
      actor,
      { agentId: row.agentId, role: below.role, resources, labels: {}, refines: layers.slice(0, -1) },
      below.principal,
    );
  }

  /**
   * Takes `amount` from a role's reservations on an agent, newest first (each reservation taken
   * from entirely is removed, the others shrunk), with `unreserveAcl` only where the ACL
   * `unreserve_resources` lets the actor unreserve what that reservation's principal reserved.
   */
  private async take(
    tx: Tx,
    actor: Actor,
    agentId: string,
    role: string,
    amount: Resources,
    opts: { unreserveAcl: boolean },
  ): Promise<Taken[]> {
    let left = amount;
    const taken: Taken[] = [];
    for (const r of await this.repo.onAgent(tx, agentId, role)) {
      if (left.isEmpty()) break;
      if (opts.unreserveAcl && !this.acls.allows(actor, 'unreserve_resources', r.principal))
        throw new ArbiterException(
          AuthErrorCode.FORBIDDEN,
          `principal '${actor.name}' may not unreserve what '${r.principal}' reserved (ACL unreserve_resources)`,
          { reservationId: r.id, principal: r.principal },
        );
      const have = Resources.of(r.resources);
      const take = have.contains(left) ? left : have.minus(have.minus(left));
      if (take.isEmpty()) continue;
      const rest = have.minus(take);
      left = left.minus(take);
      if (rest.isEmpty()) await this.repo.delete(tx, r.id);
      else await this.repo.resize(tx, r.id, rest.toJSON());
      const after = rest.isEmpty() ? null : toReservationDto({ ...r, resources: rest.toJSON() });
      await this.audit.record(tx, actor, {
        action: rest.isEmpty() ? 'reservation.remove' : 'reservation.update',
        targetType: 'reservation',
        targetId: r.id,
        before: toReservationDto(r),
        after,
      });
      taken.push({ row: r, take });
    }
    if (!left.isEmpty())
      throw new ArbiterException(
        ReservationsErrorCode.RESERVATION_INSUFFICIENT_RESOURCES,
        `no reservation covers ${left.toString()} for role '${role}' on this agent`,
        { requested: left.toString() },
      );
    return taken;
  }
}
