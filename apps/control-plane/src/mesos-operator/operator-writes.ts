/**
 * The operator API's write calls, each handed to the service its REST operation uses, with the
 * call's fields turned into that operation's input and checked by the same DTO: so the ACLs
 * (update_weights, reserve_resources, unreserve_resources, update_maintenance_schedule,
 * start_maintenance, stop_maintenance, update_quotas, drain_agents, deactivate_agents,
 * mark_agents_gone, teardown_frameworks), the rules and the audit entries are theirs.
 */
import { Resources } from '@arbiter/allocator';
import { MesosResource, PROTOCOL_ERRORS, type ResourceEntry, withoutNulls } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { AgentsService } from '../agents/agents.service';
import type { Actor } from '../auth/auth.actor';
import { FrameworkTeardown } from '../framework-lifecycle/framework-teardown.service';
import { ArbiterException } from '../errors/errors.exception';
import { ProtocolError } from '../kernel/protocol-error';
import { MachinesDto, ScheduleDto } from '../maintenance/maintenance.dto';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { fromMesosResource } from '../mesos/mesos-codec';
import { volumeOf } from '../mesos/mesos-volumes-codec';
import { CreateReservationDto } from '../reservations/reservations.dto';
import { ReservationsService } from '../reservations/reservations.service';
import { UpdateQuotaDto, UpdateWeightsDto } from '../roles/roles.dto';
import { RolesService } from '../roles/roles.service';
import { VolumesErrorCode } from '../volumes/volumes.errors';
import { VolumesService } from '../volumes/volumes.service';
import { body, checked, idOf, listOf, secondsOf, type WriteCall } from './operator-calls';
import { setOperatorLogLevel } from './operator-logging';

type Obj = Record<string, unknown>;

/** Largest verbosity SET_LOGGING_LEVEL takes, and longest it lasts (a day). */
const MAX_LEVEL = 10;
const MAX_LOG_SECONDS = 86_400;

/** A call's resources as Arbiter's entries, each checked against Mesos's Resource. */
function resourcesOf(list: Obj[], type: string): ResourceEntry[] {
  return list.map((r, i) => {
    const parsed = MesosResource.safeParse(withoutNulls(r));
    if (!parsed.success)
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        `${type}: resources.${i}: ${parsed.error.issues.map((x) => `${x.path.join('.') || '(resource)'}: ${x.message}`).join('; ')}`,
      );
    return fromMesosResource(parsed.data, `${type} resources.${i}`);
  });
}

/** The one role all of a call's resources are reserved for. */
function reservedRole(entries: ResourceEntry[], type: string): string {
  const roles = new Set(entries.map((e) => e.reservation));
  const [role] = roles;
  if (roles.size !== 1 || role === undefined)
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      `${type}: every resource must carry the same reservation (reservations: [{ type: DYNAMIC, role }]); got ${[...roles].map((r) => r ?? 'none').join(', ')}`,
    );
  return role;
}

const unreserved = (entries: ResourceEntry[]) => entries.map(({ reservation: _r, ...rest }) => rest);

const machinesOf = (list: Obj[]) =>
  list.map((m) => ({ ...(m.hostname !== undefined ? { hostname: m.hostname } : {}), ...(m.ip !== undefined ? { ip: m.ip } : {}) }));

@Injectable()
export class OperatorWrites {
  constructor(
    private readonly agents: AgentsService,
    private readonly roles: RolesService,
    private readonly reservations: ReservationsService,
    private readonly maintenance: MaintenanceService,
    private readonly teardowns: FrameworkTeardown,
    private readonly volumes: VolumesService,
  ) {}

  /** Carries the call out; its HTTP status (200, or 202 for the reservation calls, as Mesos answers them). */
  async apply(type: WriteCall, call: Obj, actor: Actor): Promise<number> {
    const message = body(call, type);
    switch (type) {
      case 'SET_LOGGING_LEVEL': {
        const level = message.level;
        if (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > MAX_LEVEL)
          throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: 'level' must be a whole number from 0 to ${MAX_LEVEL}`);
        const seconds = secondsOf(message.duration, 'duration', type);
        if (seconds > MAX_LOG_SECONDS)
          throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: 'duration' must be at most a day`);
        setOperatorLogLevel(level, seconds);
        return 200;
      }
      case 'UPDATE_WEIGHTS': {
        const dto = await checked(UpdateWeightsDto, { weights: listOf(message, 'weight_infos', type) });
        await this.roles.updateWeights(dto.weights, actor);
        return 200;
      }
      case 'RESERVE_RESOURCES': {
        const entries = resourcesOf(listOf(message, 'resources', type), type);
        const role = reservedRole(entries, type);
        const dto = await checked(CreateReservationDto, { agentId: idOf(message, 'agent_id', type), role, resources: unreserved(entries) });
        await this.reservations.create(dto, actor);
        return 202;
      }
      case 'UNRESERVE_RESOURCES':
        await this.unreserve(idOf(message, 'agent_id', type), resourcesOf(listOf(message, 'resources', type), type), actor);
        return 202;
      case 'UPDATE_MAINTENANCE_SCHEDULE':
        await this.maintenance.replaceSchedule(await checked(ScheduleDto, this.schedule(message, type)), actor);
        return 200;
      case 'START_MAINTENANCE':
      case 'STOP_MAINTENANCE': {
        const dto = await checked(MachinesDto, { machines: machinesOf(listOf(message, 'machines', type)) });
        await (type === 'START_MAINTENANCE' ? this.maintenance.start(dto.machines, actor) : this.maintenance.stop(dto.machines, actor));
        return 200;
      }
      case 'UPDATE_QUOTA':
        await this.updateQuota(message, actor);
        return 200;
      case 'DRAIN_AGENT': {
        const grace = message.max_grace_period === undefined ? null : secondsOf(message.max_grace_period, 'max_grace_period', type);
        await this.agents.drain(
          idOf(message, 'agent_id', type),
          { maxGracePeriodSeconds: grace === null ? null : Math.ceil(grace), markGone: message.mark_gone === true },
          actor,
        );
        return 200;
      }
      case 'DEACTIVATE_AGENT':
        await this.agents.deactivate(idOf(message, 'agent_id', type), actor);
        return 200;
      case 'REACTIVATE_AGENT':
        await this.agents.reactivate(idOf(message, 'agent_id', type), actor);
        return 200;
      case 'MARK_AGENT_GONE':
        // The agent's tasks are killed at once and it is marked gone once they have ended: a drain with no grace period.
        await this.agents.drain(idOf(message, 'agent_id', type), { maxGracePeriodSeconds: 0, markGone: true }, actor);
        return 200;
      case 'TEARDOWN':
        await this.teardowns.teardown(idOf(message, 'framework_id', type), actor);
        return 200;
      case 'CREATE_VOLUMES':
      case 'DESTROY_VOLUMES':
        await this.volumeCall(type, idOf(message, 'agent_id', type), listOf(message, 'volumes', type), actor);
        return 202;
    }
  }

  /**
   * CREATE_VOLUMES and DESTROY_VOLUMES: each volume through the REST operation (its ACL,
   * create_volumes or destroy_volumes, and its audit entry), one after the other: a refusal stops
   * the call there, and the volumes before it stay made (Mesos applies the call whole).
   */
  private async volumeCall(type: 'CREATE_VOLUMES' | 'DESTROY_VOLUMES', agentId: string, list: Obj[], actor: Actor): Promise<void> {
    const volumes = list.map((r, i) => {
      const [entry] = resourcesOf([r], type);
      const spec = volumeOf(MesosResource.parse(withoutNulls(r)), entry, `${type} volumes.${i}`);
      if (spec.shared)
        throw new ProtocolError(
          PROTOCOL_ERRORS.UNSUPPORTED,
          `${type}: shared volumes are made by SHARED_RESOURCES frameworks (CREATE in an ACCEPT)`,
        );
      return { spec, role: reservedRole([entry], type) };
    });
    for (const { spec, role } of volumes) {
      if (type === 'CREATE_VOLUMES') {
        const { id, ...rest } = spec;
        await this.volumes.create({ agentId, role, persistenceId: id, ...rest }, actor);
        continue;
      }
      const found = (await this.volumes.list({ agentId, role }, 1000, 0)).items.find((v) => v.persistenceId === spec.id);
      if (!found)
        throw new ArbiterException(
          VolumesErrorCode.VOLUME_NOT_FOUND,
          `${type}: no volume '${spec.id}' of role '${role}' on agent '${agentId}'`,
          { id: spec.id },
        );
      await this.volumes.destroy(found.id, actor);
    }
  }

  private schedule(message: Obj, type: string): Obj {
    const schedule = message.schedule;
    if (typeof schedule !== 'object' || schedule === null)
      throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${type}: the call needs a 'schedule' object`);
    return {
      windows: listOf(schedule as Obj, 'windows', type).map((w, i) => {
        const u = (w.unavailability ?? {}) as Obj;
        const start = (u.start ?? {}) as Obj;
        const ns = Number(start.nanoseconds);
        if (!Number.isFinite(ns))
          throw new ProtocolError(
            PROTOCOL_ERRORS.INVALID_MESSAGE,
            `${type}: windows.${i}.unavailability.start must be { "nanoseconds": n }`,
          );
        return {
          machines: machinesOf(listOf(w, 'machine_ids', type)),
          unavailability: {
            start: new Date(Math.floor(ns / 1e6)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            ...(u.duration !== undefined
              ? { durationSeconds: Math.round(secondsOf(u.duration, `windows.${i}.unavailability.duration`, type)) }
              : {}),
          },
        };
      }),
    };
  }

  /** UPDATE_QUOTA: each role's guarantees and limits set; a role given neither loses its quota, as in Mesos. */
  private async updateQuota(message: Obj, actor: Actor): Promise<void> {
    const configs = listOf(message, 'quota_configs', 'UPDATE_QUOTA');
    const amounts = (v: unknown) =>
      Object.fromEntries(Object.entries((v ?? {}) as Record<string, { value?: unknown }>).map(([k, x]) => [k, x.value]));
    const input = configs.map((c) => ({ role: c.role, guarantees: amounts(c.guarantees), limits: amounts(c.limits) }));
    const cleared = input.filter((q) => !Object.keys(q.guarantees).length && !Object.keys(q.limits).length);
    const set = input.filter((q) => !cleared.includes(q));
    if (set.length) {
      const dto = await checked(UpdateQuotaDto, { quotas: set, force: message.force === true });
      await this.roles.updateQuotas(dto.quotas, dto.force ?? false, actor);
    }
    for (const q of cleared) {
      if (typeof q.role !== 'string') throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "UPDATE_QUOTA: each config needs a 'role'");
      await this.roles.removeQuota(q.role, actor);
    }
  }

  /**
   * UNRESERVE_RESOURCES: Arbiter keeps reservations whole (each with its id), so the call must
   * name what one reservation, or all of the role's on the agent together, hold.
   */
  private async unreserve(agentId: string, entries: ResourceEntry[], actor: Actor): Promise<void> {
    const type = 'UNRESERVE_RESOURCES';
    const role = reservedRole(entries, type);
    const wanted = Resources.of(entries).toString();
    const page = await this.reservations.list({ agentId, role }, 1000, 0);
    const one = page.items.find((r) => Resources.of(r.resources).toString() === wanted);
    const all = page.items.reduce((sum, r) => sum.plus(Resources.of(r.resources)), Resources.of([]));
    const ids = one ? [one.id] : page.items.length && all.toString() === wanted ? page.items.map((r) => r.id) : [];
    if (!ids.length)
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        `${type}: no reservation of role '${role}' on agent '${agentId}' holds ${wanted || 'nothing'} (Arbiter unreserves whole reservations; GET /api/v1/reservations?agentId=${agentId} lists them)`,
      );
    for (const id of ids) await this.reservations.remove(id, actor);
  }
}
