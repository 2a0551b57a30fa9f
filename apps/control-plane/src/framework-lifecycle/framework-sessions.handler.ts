/**
 * Framework sessions in the master: subscription (new or failed over), suppress and revive.
 * A framework away and its failover timeout: framework-failover.handler.ts; its end:
 * framework-removal.handler.ts; kills of its tasks: tasks/task-kills.handler.ts.
 */
import { randomUUID } from 'node:crypto';
import { PROTOCOL_ERRORS, type RolesCall, type Subscribe, type SubscribeReply } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AccessLog } from '../audit/access-log';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../auth/auth.actor';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { Database } from '../database/database.service';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection, type FrameworkProtocol, sessionOf } from '../master/cluster-state';
import { FRAMEWORK_HEARTBEAT_SECONDS, FrameworkRegistry } from '../master/framework-registry';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { OperationFeedback } from '../operations/operation-feedback.handler';
import { type FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';
import { FrameworkFailover } from './framework-failover.handler';
import { FrameworkSessionsRepository } from './framework-sessions.repository';

/** A subscription's offer filters as the allocator takes them: per role, minimum allocatable alternatives ({} when none). */
function offerFiltersOf(msg: Subscription): Record<string, Array<Record<string, number>>> {
  return Object.fromEntries(Object.entries(msg.offerFilters ?? {}).map(([role, f]) => [role, f.minAllocatableResources]));
}

export type Subscription = Subscribe & {
  capabilities: string[];
  failoverTimeoutSeconds: number;
  suppressedRoles: string[];
  /** The protocol it speaks (default: Arbiter's own). */
  protocol?: FrameworkProtocol;
  /** Mesos's FrameworkInfo.webui_url. */
  webuiUrl?: string;
};

@Injectable()
export class FrameworkSessions {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: FrameworkRegistry,
    private readonly frameworks: FrameworkSessionsRepository,
    private readonly updates: TaskUpdates,
    private readonly operations: OperationFeedback,
    private readonly offers: OfferRescinds,
    private readonly failover: FrameworkFailover,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly audit: AuditService,
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Subscribes a framework for the principal behind the socket: a new framework id becomes that
   * principal's; someone else's framework id, or a `principal` field naming another principal,
   * is refused (FRAMEWORK_PRINCIPAL_MISMATCH), as is a role the register_frameworks ACL does
   * not allow. Refusals are audited; so is every new framework.
   */
  subscribe(socket: FrameworkConnection, msg: Subscription, actor: Actor): Promise<SubscribeReply> {
    return this.kernel.exclusive(async () => {
      const now = this.clock.date();
      // An anonymous Mesos framework has no principal (whatever its framework_info claims).
      const principal = actor.anonymous ? null : actor.name;
      // One framework per connection: subscribing again is for the same framework only.
      const current = sessionOf(socket).frameworkId;
      if (current !== undefined && current !== msg.frameworkId)
        throw new ProtocolError(
          PROTOCOL_ERRORS.ALREADY_SUBSCRIBED,
          `this connection is subscribed as framework ${current}; subscribe again with that frameworkId, or open another connection for another framework`,
          { frameworkId: current },
        );
      const refuse = async (code: string, reason: string, message: string): Promise<never> => {
        await this.access.denied(actor, { what: 'subscribe', reason, targetType: 'framework', targetId: msg.frameworkId ?? null });
        throw new ProtocolError(code, message);
      };
      if (principal !== null && msg.principal !== undefined && msg.principal !== principal)
        await refuse(
          PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
          `principal field '${msg.principal}'`,
          `the subscription names principal '${msg.principal}' but the token belongs to '${principal}'`,
        );
      await this.checkRoles(msg.roles, actor, refuse);
      let fw: FrameworkEntity | null = null;
      if (msg.frameworkId) {
        fw = await this.frameworks.find(msg.frameworkId);
        // An anonymous framework (no principal) is no one's to take over either.
        if (fw && fw.principal !== principal)
          await refuse(
            PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
            `framework belongs to ${fw.principal === null ? 'no principal (anonymous)' : `principal '${fw.principal}'`}`,
            fw.principal === null
              ? `framework ${fw.id} was subscribed anonymously; principal '${actor.name}' cannot subscribe as it`
              : `framework ${fw.id} belongs to another principal; principal '${actor.name}' cannot subscribe as it`,
          );
        // Nothing proves who an anonymous caller is: while an anonymous framework's stream is open,
        // only that stream (its Mesos-Stream-Id) acts for it; it fails over once the stream has ended.
        const open = fw && principal === null ? this.state.frameworks.get(fw.id)?.socket : undefined;
        if (fw && open && open.id !== socket.id)
          await refuse(
            PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
            'anonymous framework connected elsewhere',
            `framework ${fw.id} is anonymous and its event stream is open: only that stream acts for it (subscribe again once it has ended)`,
          );
        if (!fw)
          throw new ProtocolError(
            PROTOCOL_ERRORS.UNKNOWN_FRAMEWORK,
            `no framework with id '${msg.frameworkId}'; subscribe without an id to start afresh`,
          );
        if (fw.state === FrameworkState.COMPLETED)
          throw new ProtocolError(
            PROTOCOL_ERRORS.FRAMEWORK_COMPLETED,
            `framework ${fw.id} has completed (torn down or failed over past its timeout); subscribe without an id`,
          );
      }
      if (!fw) {
        const count = await this.frameworks.countNotCompleted(principal);
        if (count >= this.config.maxFrameworksPerPrincipal)
          await refuse(
            PROTOCOL_ERRORS.TOO_MANY_FRAMEWORKS,
            `${count} frameworks already`,
            `${principal === null ? 'anonymous callers have' : `principal '${principal}' has`} ${count} frameworks that have not completed, as many as one principal may (ARBITER_MAX_FRAMEWORKS_PER_PRINCIPAL); tear one down or subscribe as one of them`,
          );
      }
      const fields = {
        name: msg.name,
        roles: msg.roles,
        capabilities: msg.capabilities,
        failoverTimeoutSeconds: msg.failoverTimeoutSeconds,
        principal,
        user: msg.user ?? null,
        hostname: msg.hostname ?? null,
        state: FrameworkState.ACTIVE,
        suppressedRoles: msg.suppressedRoles,
        disconnectedAt: null,
        protocol: msg.protocol ?? 'arbiter',
        webuiUrl: msg.webuiUrl ?? null,
        checkpoint: msg.checkpoint ?? true,
      };
      const row = await this.frameworks.save(
        fw ? Object.assign(fw, fields) : { ...fields, id: randomUUID(), registeredAt: now, completedAt: null },
      );
      const { allocator } = this.state;
      let runtime = this.state.frameworks.get(row.id);
      if (runtime) {
        this.failover.cancel(row.id);
        if (runtime.socket && runtime.socket.id !== socket.id) runtime.socket.disconnect(true);
        await this.offers.ofFramework(row.id, 'the framework re-subscribed');
        allocator.updateFramework(row.id, row.roles, row.capabilities, offerFiltersOf(msg), msg.taskSize ?? null);
        allocator.reviveOffers(row.id);
        if (row.suppressedRoles.length) allocator.suppressOffers(row.id, row.suppressedRoles);
        allocator.activateFramework(row.id);
        this.registry.describe(row.id, row, row.user);
      } else {
        allocator.addFramework(row.id, row.roles, {
          capabilities: row.capabilities,
          suppressedRoles: row.suppressedRoles,
          offerFilters: offerFiltersOf(msg),
          taskSize: msg.taskSize,
        });
        runtime = {
          id: row.id,
          name: row.name,
          roles: row.roles,
          capabilities: row.capabilities,
          failoverTimeoutSeconds: row.failoverTimeoutSeconds,
          checkpoint: row.checkpoint,
          // Before its framework.added event, whose readers are chosen by it (view_frameworks).
          user: row.user,
        };
        this.registry.put(runtime);
        this.stream.emit('framework.added', {
          frameworkId: row.id,
          name: row.name,
          roles: row.roles,
          user: row.user,
          principal: row.principal,
          hostname: row.hostname,
          webuiUrl: row.webuiUrl,
          capabilities: row.capabilities,
          failoverTimeoutSeconds: row.failoverTimeoutSeconds,
          checkpoint: row.checkpoint,
          registeredAt: new Date(row.registeredAt).toISOString(),
        });
        if (!fw)
          await this.db.transaction((tx) =>
            this.audit.record(
              tx,
              actor,
              {
                action: 'framework.register',
                targetType: 'framework',
                targetId: row.id,
                before: null,
                after: { name: row.name, roles: row.roles, user: row.user },
              },
              now,
            ),
          );
      }
      this.registry.connected(row.id, socket, actor, row.user);
      sessionOf(socket).frameworkId = row.id;
      // Updates it has not acknowledged go out again, once the reply is on its way, before any
      // recorded from now on.
      this.updates.hold(row.id);
      setImmediate(() => void this.updates.resync(row.id).then(() => this.operations.resync(row.id)));
      this.loop.requestCycle();
      return { frameworkId: row.id, heartbeatIntervalSeconds: FRAMEWORK_HEARTBEAT_SECONDS };
    });
  }

  /** A role the register_frameworks ACL does not allow the actor is refused (FORBIDDEN). */
  private async checkRoles(roles: string[], actor: Actor, refuse: (code: string, reason: string, message: string) => Promise<never>) {
    const role = roles.find((r) => !this.acls.allows(actor, 'register_frameworks', r));
    if (role !== undefined)
      await refuse(
        PROTOCOL_ERRORS.FORBIDDEN,
        `ACL register_frameworks refuses role '${role}'`,
        `principal '${actor.name}' may not register frameworks in role '${role}' (ACL register_frameworks)`,
      );
  }

  /**
   * Changes the subscribed framework's info in place (Mesos's UPDATE_FRAMEWORK), for the
   * framework the connection is subscribed as only: roles (each allowed by register_frameworks),
   * capabilities, failover timeout, suppressed roles, offer filters, name, hostname, web UI.
   * Its user and principal cannot change (INVALID_MESSAGE, FRAMEWORK_PRINCIPAL_MISMATCH). Offers
   * made to roles it leaves are rescinded; tasks in them run on. All or nothing.
   */
  update(socket: FrameworkConnection, msg: Subscription & { frameworkId: string }, actor: Actor): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.frameworkOf(socket);
      const refuse = async (code: string, reason: string, message: string): Promise<never> => {
        await this.access.denied(actor, { what: 'update framework', reason, targetType: 'framework', targetId: msg.frameworkId });
        throw new ProtocolError(code, message);
      };
      if (msg.frameworkId !== runtime.id)
        await refuse(
          PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
          `connection subscribed as framework ${runtime.id}`,
          `this connection is subscribed as framework ${runtime.id}; it cannot update framework '${msg.frameworkId}'`,
        );
      const row = await this.frameworks.find(runtime.id);
      if (!row) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_FRAMEWORK, `framework ${runtime.id} is gone`);
      if (msg.principal !== undefined && !actor.anonymous && msg.principal !== row.principal)
        await refuse(
          PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
          `principal field '${msg.principal}'`,
          `a framework's principal cannot change: it is ${row.principal === null ? 'none (anonymous)' : `'${row.principal}'`}`,
        );
      if ((msg.user ?? null) !== row.user)
        throw new ProtocolError(
          PROTOCOL_ERRORS.INVALID_MESSAGE,
          `a framework's user cannot change: it is ${row.user === null ? 'none' : `'${row.user}'`}, the update names ${msg.user === undefined ? 'none' : `'${msg.user}'`}`,
        );
      const outside = msg.suppressedRoles.filter((r) => !msg.roles.includes(r));
      if (outside.length)
        throw new ProtocolError(
          PROTOCOL_ERRORS.INVALID_MESSAGE,
          `suppressed roles must be among the framework's roles: ${outside.map((r) => `'${r}'`).join(', ')} is not`,
        );
      await this.checkRoles(msg.roles, actor, refuse);
      const before = new Set(row.suppressedRoles);
      const saved = await this.frameworks.save(
        Object.assign(row, {
          name: msg.name,
          roles: msg.roles,
          capabilities: msg.capabilities,
          failoverTimeoutSeconds: msg.failoverTimeoutSeconds,
          hostname: msg.hostname ?? null,
          suppressedRoles: msg.suppressedRoles,
          ...(msg.webuiUrl !== undefined ? { webuiUrl: msg.webuiUrl } : {}),
        }),
      );
      await this.offers.outsideRoles(saved.id, saved.roles, 'the framework left the role of the offer');
      const { allocator } = this.state;
      allocator.updateFramework(saved.id, saved.roles, saved.capabilities, offerFiltersOf(msg), msg.taskSize ?? null);
      const suppressed = saved.suppressedRoles.filter((r) => !before.has(r));
      const unsuppressed = saved.roles.filter((r) => before.has(r) && !saved.suppressedRoles.includes(r));
      if (suppressed.length) allocator.suppressOffers(saved.id, suppressed);
      if (unsuppressed.length) allocator.reviveOffers(saved.id, unsuppressed);
      this.registry.describe(saved.id, saved, saved.user);
      this.loop.requestCycle();
    });
  }

  suppress(socket: FrameworkConnection, msg: RolesCall): Promise<void> {
    return this.changeSuppression(socket, msg, true);
  }

  revive(socket: FrameworkConnection, msg: RolesCall): Promise<void> {
    return this.changeSuppression(socket, msg, false);
  }

  private changeSuppression(socket: FrameworkConnection, msg: RolesCall, suppress: boolean): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      const roles = msg.roles ?? fw.roles;
      const unknown = roles.filter((r) => !fw.roles.includes(r));
      if (unknown.length)
        throw new ProtocolError(
          PROTOCOL_ERRORS.ROLE_NOT_SUBSCRIBED,
          `the framework is not subscribed to ${unknown.map((r) => `'${r}'`).join(', ')}`,
        );
      await this.frameworks.changeSuppressed(fw.id, roles, suppress);
      if (suppress) this.state.allocator.suppressOffers(fw.id, roles);
      else {
        this.state.allocator.reviveOffers(fw.id, roles);
        this.loop.requestCycle();
      }
    });
  }
}
