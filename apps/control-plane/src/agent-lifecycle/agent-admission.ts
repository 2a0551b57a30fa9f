/**
 * Who may register an agent: the register_agents ACL (its hostname), the principal an agent id
 * belongs to, a hostname another live agent holds, a machine gone or down for maintenance.
 * Refusals and new agents are audited.
 */
import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import { AgentCapabilities, PROTOCOL_ERRORS, type RegisterAgent } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AccessLog } from '../audit/access-log';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../auth/auth.actor';
import { Database } from '../database/database.service';
import type { AgentSocket } from '../master/cluster-state';
import { ProtocolError } from '../kernel/protocol-error';
import { MaintenanceSync } from './maintenance-sync.handler';
import { type AgentEntity, AgentStatus } from '../agents/agent.entity';

/** The IP an agent connects from, IPv4 addresses without their IPv6 mapping ('::ffff:10.0.0.1' is 10.0.0.1). */
export function ipOf(socket: AgentSocket): string | undefined {
  const address = socket.handshake.address as string | undefined;
  return address ? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') : undefined;
}

export type AgentRegistration = RegisterAgent & {
  tasks: NonNullable<RegisterAgent['tasks']>;
  attributes: NonNullable<RegisterAgent['attributes']>;
};

export interface Registration {
  socket: AgentSocket;
  msg: AgentRegistration;
  actor: Actor;
}

@Injectable()
export class AgentAdmission {
  constructor(
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly audit: AuditService,
    private readonly db: Database,
    private readonly maintenance: MaintenanceSync,
  ) {}

  /**
   * Checks one registration and gives the row to save, or throws the refusal (audited). `held`:
   * the hostnames of the live (registered, connected) agents and their ids; only the agent that
   * holds a hostname may register it again (its restart or reconnection).
   */
  async admit(
    { socket, msg, actor }: Registration,
    known: ReadonlyMap<string, AgentEntity>,
    held: ReadonlyMap<string, string>,
    now: Date,
  ): Promise<{ row: AgentEntity; isNew: boolean }> {
    const ip = ipOf(socket);
    const resources = Resources.of(msg.resources).toJSON();
    if (!this.acls.allows(actor, 'register_agents', msg.hostname)) {
      await this.access.denied(actor, {
        what: 'register agent',
        reason: `ACL register_agents refuses agent '${msg.hostname}'`,
        targetType: 'agent',
        targetId: msg.agentId ?? null,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.FORBIDDEN,
        `principal '${actor.name}' may not register agent '${msg.hostname}' (ACL register_agents)`,
      );
    }
    const row = msg.agentId ? known.get(msg.agentId) : undefined;
    if (row?.principal && row.principal !== actor.name) {
      await this.access.denied(actor, {
        what: 'register agent',
        reason: `agent id belongs to principal '${row.principal}'`,
        targetType: 'agent',
        targetId: row.id,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.AGENT_PRINCIPAL_MISMATCH,
        `agent ${row.id} was registered by another principal; principal '${actor.name}' cannot register under its id`,
      );
    }
    const holder = held.get(msg.hostname);
    if (holder !== undefined && holder !== msg.agentId) {
      await this.access.denied(actor, {
        what: 'register agent',
        reason: `hostname '${msg.hostname}' is held by live agent ${holder}`,
        targetType: 'agent',
        targetId: holder,
      });
      throw new ProtocolError(
        PROTOCOL_ERRORS.AGENT_HOSTNAME_IN_USE,
        `hostname '${msg.hostname}' is held by another agent that is registered and connected; it may register once that agent disconnects`,
      );
    }
    if (row?.status === AgentStatus.GONE)
      throw new ProtocolError(PROTOCOL_ERRORS.AGENT_GONE, `agent ${row.id} was marked gone; start the agent with a fresh work directory`);
    if (this.maintenance.isDown({ hostname: msg.hostname, ip }))
      throw new ProtocolError(
        PROTOCOL_ERRORS.MACHINE_DOWN,
        `machine ${msg.hostname} (${ip ?? 'no IP'}) is down for maintenance; the agent may register once an operator stops it`,
      );
    const fields = {
      hostname: msg.hostname,
      address: msg.address ?? null,
      resources,
      attributes: msg.attributes,
      status: AgentStatus.REACHABLE,
      version: msg.version ?? null,
      lastSeenAt: now,
      principal: actor.name,
      isolation: msg.isolation
        ? {
            mode: msg.isolation.mode,
            controllers: msg.isolation.controllers ?? [],
            ...(msg.isolation.taskUser ? { taskUser: msg.isolation.taskUser } : {}),
            diskQuota: msg.isolation.diskQuota ?? false,
          }
        : null,
      // null: the agent says nothing of its health (an older agent).
      health: msg.health ?? null,
      // null: an agent older than containers (plain processes only).
      capabilities: msg.capabilities ? AgentCapabilities.parse(msg.capabilities) : null,
    };
    const agent: AgentEntity = row
      ? Object.assign(row, fields)
      : {
          ...fields,
          id: msg.agentId ?? randomUUID(),
          activated: true,
          drainState: null,
          drainConfig: null,
          drainStartedAt: null,
          firstSeenAt: now,
        };
    return { row: agent, isNew: !row };
  }

  /** Audits the agents registered for the first time. */
  async recordRegistered(created: Array<{ agent: AgentEntity; actor: Actor }>, now: Date): Promise<void> {
    if (!created.length) return;
    await this.db.transaction(async (tx) => {
      for (const { agent, actor } of created) {
        await this.audit.record(
          tx,
          actor,
          {
            action: 'agent.register',
            targetType: 'agent',
            targetId: agent.id,
            before: null,
            after: { hostname: agent.hostname, resources: agent.resources, isolation: agent.isolation },
          },
          now,
        );
      }
    });
  }
}
