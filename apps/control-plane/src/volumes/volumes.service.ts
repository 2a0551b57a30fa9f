/**
 * Persistent volumes (Mesos's CREATE and DESTROY, for operators and frameworks alike): disk
 * reserved for a role made into a named volume on its agent, and back. The agent makes the
 * volume's directory before the row is written and removes it (with its data) before the row
 * goes, so the database never names a volume its agent does not have. Checks and changes run
 * under the resources lock (as reservations do), each change with its audit entry; the
 * allocator takes the agent's new total from the cluster event after the commit.
 */
import { Injectable } from '@nestjs/common';
import {
  PersistenceId,
  Role,
  VolumeContainerPath,
  VolumeDiskSource,
  VolumeMode,
  type CreateVolumeReply,
  type Reply,
} from '@arbiter/contracts';
import { AclsService } from '../acls/acls.service';
import { AgentStatus } from '../agents/agent.entity';
import { AgentsErrorCode } from '../agents/agents.errors';
import type { Actor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { PrincipalKind } from '../auth/principal.entity';
import { AuditService } from '../audit/audit.service';
import { Metrics } from '../health/metrics';
import type { Page } from '../common/pagination.dto';
import { Database, lockDomain, LockDomain, type Tx } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { checkField } from '../errors/errors.validation';
import { ClusterEvents } from '../leadership/cluster-events';
import { AllocationUsageRepository } from '../master/allocation-usage.repository';
import { Outbox } from '../master/outbox';
import type { VolumeEntity } from './volume.entity';
import { type CreatePersistentVolumeDto, type PersistentVolumeDto, toVolumeDto } from './volumes.dto';
import { VolumesErrorCode } from './volumes.errors';
import { VolumesRepository } from './volumes.repository';
import { reservedDiskFree, volumeUsedBy } from './volumes.rules';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long the agent has to make or remove a volume's directory. */
const AGENT_ANSWER_MS = 10_000;

/** One volume to create: its persistence id, size (MB), container path and mode. */
export interface VolumeSpec {
  id: string;
  disk: number;
  containerPath: string;
  mode: 'RW' | 'RO';
  /** The disk it is made on, when not the agent's root disk. */
  source?: VolumeDiskSource;
  /** Shared by several tasks at once (SHARED_RESOURCES frameworks). */
  shared?: boolean;
}

@Injectable()
export class VolumesService {
  constructor(
    private readonly db: Database,
    private readonly repo: VolumesRepository,
    private readonly usage: AllocationUsageRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
    private readonly outbox: Outbox,
    private readonly metrics: Metrics,
  ) {}

  async list(filter: { agentId?: string; role?: string }, limit: number, offset: number): Promise<Page<PersistentVolumeDto>> {
    const [rows, total] = await this.repo.list(this.db.manager, filter, limit, offset);
    return { items: await this.withUsers(rows), total, limit, offset };
  }

  async get(id: string): Promise<PersistentVolumeDto> {
    return (await this.withUsers([await this.require(id)]))[0];
  }

  /** Each volume with the frameworks whose live tasks or executors use it. */
  private async withUsers(rows: VolumeEntity[]): Promise<PersistentVolumeDto[]> {
    const live = new Map<string, Awaited<ReturnType<AllocationUsageRepository['liveTasks']>>>();
    for (const agentId of new Set(rows.map((r) => r.agentId))) live.set(agentId, await this.usage.liveTasks(this.db.manager, { agentId }));
    return rows.map((r) => toVolumeDto(r, [...new Set(volumeUsedBy(live.get(r.agentId) ?? [], r.role, r.persistenceId))]));
  }

  private async require(id: string): Promise<VolumeEntity> {
    const row = UUID.test(id) ? await this.repo.find(this.db.manager, id) : null;
    if (!row)
      throw new ArbiterException(VolumesErrorCode.VOLUME_NOT_FOUND, `no volume with id '${id}'; GET /api/v1/volumes lists them`, { id });
    return row;
  }

  /** An operator's CREATE: one volume on disk reserved for the role on the agent (ACL create_volumes on the role). */
  async create(input: CreatePersistentVolumeDto, actor: Actor): Promise<PersistentVolumeDto> {
    const role = checkField(Role, input.role, 'role');
    const spec: VolumeSpec = {
      id: checkField(PersistenceId, input.persistenceId, 'persistenceId'),
      disk: input.disk,
      containerPath: checkField(VolumeContainerPath, input.containerPath, 'containerPath'),
      mode: checkField(VolumeMode, input.mode ?? 'RW', 'mode'),
      ...(input.source === undefined ? {} : { source: checkField(VolumeDiskSource, input.source, 'source') }),
    };
    if (!(spec.disk > 0) || spec.disk > 1e12)
      throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, 'invalid request: disk must be a positive number of MB', {
        errors: [{ field: 'disk', problems: ['must be positive'] }],
      });
    await this.acls.authorize(actor, 'create_volumes', role, `create volumes for role '${role}'`);
    const [row] = await this.createVolumes(actor, input.agentId, role, [spec], { checkDisk: true });
    return toVolumeDto(row);
  }

  /** An operator's DESTROY (ACL destroy_volumes on the volume's creator): refused while a task uses it. */
  async destroy(id: string, actor: Actor): Promise<void> {
    const row = await this.require(id);
    await this.acls.authorize(actor, 'destroy_volumes', row.principal, `destroy volume ${row.persistenceId}`);
    await this.destroyVolumes(actor, row.agentId, row.role, [row.persistenceId]);
  }

  /**
   * A framework's CREATE or DESTROY (the caller has checked the offers, and `within` closes
   * them in the same transaction). Recorded under the framework's principal, as reservations are.
   */
  async applyForFramework(
    framework: { id: string; actor?: Actor },
    agentId: string,
    role: string,
    op: { type: 'CREATE'; volumes: VolumeSpec[] } | { type: 'DESTROY'; volumes: Array<{ id: string }> },
    within: (tx: Tx) => Promise<void>,
  ): Promise<void> {
    const actor: Actor = framework.actor ?? {
      principalId: null,
      name: `framework:${framework.id}`,
      kind: PrincipalKind.FRAMEWORK,
      tokenId: null,
      requestId: null,
    };
    if (op.type === 'CREATE') await this.createVolumes(actor, agentId, role, op.volumes, { checkDisk: false, within });
    else
      await this.destroyVolumes(
        actor,
        agentId,
        role,
        op.volumes.map((v) => v.id),
        within,
      );
  }

  private async createVolumes(
    actor: Actor,
    agentId: string,
    role: string,
    specs: VolumeSpec[],
    options: { checkDisk: boolean; within?: (tx: Tx) => Promise<void> },
  ): Promise<VolumeEntity[]> {
    const created = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const agent = await this.repo.agent(tx, agentId);
      if (!agent)
        throw new ArbiterException(AgentsErrorCode.AGENT_NOT_FOUND, `no agent with id '${agentId}'; GET /api/v1/agents lists them`, {
          agentId,
        });
      if (agent.status === AgentStatus.GONE)
        throw new ArbiterException(AgentsErrorCode.AGENT_GONE, `agent ${agent.id} (${agent.hostname}) is marked gone`, { agentId });
      const existing = await this.repo.onAgent(tx, agentId, role);
      const ids = new Set(existing.map((v) => v.persistenceId));
      for (const s of specs) {
        if (ids.has(s.id))
          throw new ArbiterException(VolumesErrorCode.VOLUME_EXISTS, `role '${role}' has a volume '${s.id}' on this agent already`, {
            id: s.id,
          });
        ids.add(s.id);
      }
      if (options.checkDisk) {
        const [reservations, live] = [await this.repo.reservationsOn(tx, agentId, role), await this.usage.liveTasks(tx, { agentId })];
        for (const s of specs) {
          const free = reservedDiskFree(reservations, existing, live, role, s.source);
          const on = s.source ? ` on ${s.source.type} disk ${s.source.root}` : '';
          // A MOUNT disk is used whole: its volume takes all of it.
          if (s.disk > free + 1e-9 || (s.source?.type === 'MOUNT' && Math.abs(s.disk - free) > 1e-9))
            throw new ArbiterException(
              VolumesErrorCode.VOLUME_INSUFFICIENT_DISK,
              `role '${role}' has ${free} MB of reserved disk free${on} on agent ${agent.hostname}; ${s.disk} MB ${s.source?.type === 'MOUNT' ? 'is not the whole MOUNT disk' : 'does not fit (reserve disk first)'}`,
              { free, requested: s.disk },
            );
        }
      }
      await options.within?.(tx);
      const rows: VolumeEntity[] = [];
      for (const s of specs) {
        const reply = await this.tell<CreateVolumeReply>(agentId, 'createVolume', {
          role,
          id: s.id,
          containerPath: s.containerPath,
          mode: s.mode,
          ...(s.source ? { source: s.source } : {}),
        });
        const row = await this.repo.insert(tx, {
          agentId,
          role,
          persistenceId: s.id,
          disk: s.disk,
          containerPath: s.containerPath,
          mode: s.mode,
          source: s.source ?? null,
          shared: s.shared ?? false,
          principal: actor.name,
          hostPath: reply.path,
          createdAt: new Date(),
        });
        await this.audit.record(tx, actor, {
          action: 'volume.create',
          targetType: 'volume',
          targetId: row.id,
          before: null,
          after: toVolumeDto(row),
        });
        rows.push(row);
      }
      return rows;
    });
    for (const v of created) this.events.emit({ type: 'volume.created', agentId, volumeId: v.id });
    this.metrics.volumeOperations.inc({ operation: 'create', source: options.within ? 'offer' : 'operator' }, created.length);
    return created;
  }

  private async destroyVolumes(
    actor: Actor,
    agentId: string,
    role: string,
    ids: string[],
    within?: (tx: Tx) => Promise<void>,
  ): Promise<void> {
    const destroyed = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.RESOURCES);
      const rows: VolumeEntity[] = [];
      for (const id of ids) {
        const row = await this.repo.byPersistenceId(tx, agentId, role, id);
        if (!row)
          throw new ArbiterException(VolumesErrorCode.VOLUME_NOT_FOUND, `role '${role}' has no volume '${id}' on this agent`, { id });
        if (!this.acls.allows(actor, 'destroy_volumes', row.principal))
          throw new ArbiterException(
            AuthErrorCode.FORBIDDEN,
            `principal '${actor.name}' may not destroy volume '${id}' created by '${row.principal}' (ACL destroy_volumes)`,
            { id, principal: row.principal },
          );
        const users = volumeUsedBy(await this.usage.liveTasks(tx, { agentId }), role, id);
        if (users.length)
          throw new ArbiterException(
            VolumesErrorCode.VOLUME_IN_USE,
            `volume '${id}' is used by ${users.length} live task(s) or executor(s) of framework(s) ${[...new Set(users)].join(', ')}; kill them before destroying it`,
            { id, frameworks: [...new Set(users)] },
          );
        rows.push(row);
      }
      await within?.(tx);
      for (const row of rows) {
        await this.tell(agentId, 'destroyVolume', { role, id: row.persistenceId, ...(row.source ? { source: row.source } : {}) });
        await this.repo.delete(tx, row.id);
        await this.audit.record(tx, actor, {
          action: 'volume.destroy',
          targetType: 'volume',
          targetId: row.id,
          before: toVolumeDto(row),
          after: null,
        });
      }
      return rows;
    });
    for (const v of destroyed) this.events.emit({ type: 'volume.destroyed', agentId, volumeId: v.id });
    this.metrics.volumeOperations.inc({ operation: 'destroy', source: within ? 'offer' : 'operator' }, destroyed.length);
  }

  /** Has the agent make or remove a volume's directory; its refusal or silence is the operation's. */
  private async tell<T extends object>(
    agentId: string,
    event: 'createVolume' | 'destroyVolume',
    payload: { role: string; id: string } & Record<string, unknown>,
  ): Promise<T> {
    const reply = (await this.outbox.ask(agentId, event, payload, AGENT_ANSWER_MS)) as Reply<T> | undefined;
    if (!reply)
      throw new ArbiterException(
        VolumesErrorCode.VOLUME_AGENT_UNREACHABLE,
        `agent ${agentId} is not connected to this control plane or did not answer; nothing changed`,
        { agentId },
      );
    if (!reply.ok) {
      const code = reply.error.code === 'VOLUME_IN_USE' ? VolumesErrorCode.VOLUME_IN_USE : VolumesErrorCode.VOLUME_AGENT_FAILED;
      throw new ArbiterException(code, `agent ${agentId}: ${reply.error.message}`, { agentId });
    }
    return reply;
  }
}
