/**
 * Framework sessions in the master: subscription (new or failed over), disconnection and the
 * failover timeout, teardown, suppress and revive, and kills of their tasks.
 */
import { randomUUID } from 'node:crypto';
import { type Kill, PROTOCOL_ERRORS, type RolesCall, type Subscribe, type SubscribeReply } from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { AccessLog } from '../audit/access-log';
import { AuditService } from '../audit/audit.service';
import { type Actor, SYSTEM_ACTOR } from '../auth/auth.actor';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { Database } from '../database/database.service';
import { OperatorStream } from '../events/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection, type FrameworkProtocol, type FrameworkRuntime, sessionOf } from '../kernel/cluster-state';
import { EventualWrites } from '../kernel/eventual-writes';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { isTerminal, TaskUpdates } from '../tasks/task-updates.handler';
import { Outbox } from '../master/outbox';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { TasksRepository } from '../tasks/tasks.repository';
import { type FrameworkEntity, FrameworkState } from './framework.entity';
import { FrameworkSessionsRepository } from './framework-sessions.repository';

/** A subscription's offer filters as the allocator takes them: per role, minimum allocatable alternatives ({} when none). */
function offerFiltersOf(msg: Subscription): Record<string, Array<Record<string, number>>> {
  return Object.fromEntries(Object.entries(msg.offerFilters ?? {}).map(([role, f]) => [role, f.minAllocatableResources]));
}

export const FRAMEWORK_HEARTBEAT_SECONDS = 15;
/** How soon a teardown past the failover timeout that failed is tried again. */
export const FAILOVER_RETRY_MS = 5000;

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
  private readonly logger = new Logger('FrameworkSessions');

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly frameworks: FrameworkSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly inverseOffers: InverseOffers,
    private readonly loop: AllocationLoop,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly audit: AuditService,
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly writes: EventualWrites,
    private readonly outbox: Outbox,
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
      const role = msg.roles.find((r) => !this.acls.allows(actor, 'register_frameworks', r));
      if (role !== undefined)
        await refuse(
          PROTOCOL_ERRORS.FORBIDDEN,
          `ACL register_frameworks refuses role '${role}'`,
          `principal '${actor.name}' may not register frameworks in role '${role}' (ACL register_frameworks)`,
        );
      let fw: FrameworkEntity | null = null;
      if (msg.frameworkId) {
        fw = await this.frameworks.find(msg.frameworkId);
        if (fw?.principal && fw.principal !== principal)
          await refuse(
            PROTOCOL_ERRORS.FRAMEWORK_PRINCIPAL_MISMATCH,
            `framework belongs to principal '${fw.principal}'`,
            `framework ${fw.id} belongs to another principal; principal '${actor.name}' cannot subscribe as it`,
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
      };
      const row = await this.frameworks.save(
        fw ? Object.assign(fw, fields) : { ...fields, id: randomUUID(), registeredAt: now, completedAt: null },
      );
      const { allocator } = this.state;
      let runtime = this.state.frameworks.get(row.id);
      if (runtime) {
        runtime.failoverTimer?.cancel();
        runtime.failoverTimer = undefined;
        if (runtime.socket && runtime.socket.id !== socket.id) runtime.socket.disconnect(true);
        await this.offers.ofFramework(row.id, 'the framework re-subscribed');
        allocator.updateFramework(row.id, row.roles, row.capabilities, offerFiltersOf(msg), msg.taskSize ?? null);
        allocator.reviveOffers(row.id);
        if (row.suppressedRoles.length) allocator.suppressOffers(row.id, row.suppressedRoles);
        allocator.activateFramework(row.id);
        Object.assign(runtime, {
          name: row.name,
          roles: row.roles,
          capabilities: row.capabilities,
          failoverTimeoutSeconds: row.failoverTimeoutSeconds,
        });
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
        };
        this.state.frameworks.set(row.id, runtime);
        this.stream.emit('framework.added', { frameworkId: row.id, name: row.name, roles: row.roles });
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
      runtime.socket = socket;
      runtime.actor = actor;
      runtime.user = row.user;
      sessionOf(socket).frameworkId = row.id;
      // Updates it has not acknowledged go out again, once the reply is on its way, before any
      // recorded from now on.
      runtime.held = [];
      setImmediate(() => void this.updates.resync(row.id));
      this.loop.requestCycle();
      return { frameworkId: row.id, heartbeatIntervalSeconds: FRAMEWORK_HEARTBEAT_SECONDS };
    });
  }

  /** A framework known from the database at start: in the allocator, inactive until it subscribes again. */
  async restore(fw: FrameworkEntity): Promise<void> {
    this.state.allocator.addFramework(fw.id, fw.roles, {
      capabilities: fw.capabilities,
      active: false,
      suppressedRoles: fw.suppressedRoles,
    });
    const runtime: FrameworkRuntime = {
      id: fw.id,
      name: fw.name,
      roles: fw.roles,
      capabilities: fw.capabilities,
      failoverTimeoutSeconds: fw.failoverTimeoutSeconds,
    };
    this.state.frameworks.set(fw.id, runtime);
    if (fw.state === FrameworkState.ACTIVE) await this.frameworks.markDisconnected(fw.id, this.clock.date());
    // Every framework gets the re-subscription grace before its failover timeout starts again:
    // a restart or a leader change (maybe several in a row) is no disconnection of its doing.
    this.startFailover(runtime, this.config.frameworkResubscribeGrace);
  }

  disconnected(socket: FrameworkConnection): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.frameworks.get(String(sessionOf(socket).frameworkId));
      if (runtime?.socket !== socket) return;
      runtime.socket = undefined;
      this.state.allocator.deactivateFramework(runtime.id);
      // The failover timeout runs from now whatever the database says meanwhile.
      this.startFailover(runtime);
      await this.offers.ofFramework(runtime.id, 'the framework disconnected');
      this.inverseOffers.rescindOfFramework(runtime.id, 'the framework disconnected');
      const at = this.clock.date();
      await this.writes.write('background', `recording framework ${runtime.id} as disconnected`, () =>
        this.frameworks.markDisconnected(runtime.id, at),
      );
    });
  }

  /**
   * After the failover timeout a disconnected framework is torn down. A teardown that fails (the
   * database is away) is logged and tried again after FAILOVER_RETRY_MS while the framework stays
   * away, so no framework outlives its timeout by more than the outage.
   */
  private startFailover(
    runtime: FrameworkRuntime,
    graceSeconds = 0,
    delayMs = (graceSeconds + runtime.failoverTimeoutSeconds) * 1000,
  ): void {
    runtime.failoverTimer?.cancel();
    const term = this.kernel.term;
    runtime.failoverTimer = this.clock.after(delayMs, () => {
      runtime.failoverTimer = undefined;
      const away = () => !runtime.socket && this.state.frameworks.get(runtime.id) === runtime && this.kernel.term === term;
      this.kernel
        .exclusive(async () => {
          if (away())
            await this.remove(
              runtime.id,
              graceSeconds
                ? `did not re-subscribe within ${graceSeconds} s of the control plane's start, then its failover timeout (${runtime.failoverTimeoutSeconds} s)`
                : `disconnected for longer than its failover timeout (${runtime.failoverTimeoutSeconds} s)`,
              SYSTEM_ACTOR,
            );
        })
        .catch((err: unknown) => {
          this.logger.error(
            { err, frameworkId: runtime.id, retryInMs: FAILOVER_RETRY_MS },
            'tearing down a framework past its failover timeout failed; trying again',
          );
          if (away() && !this.kernel.stopping) this.startFailover(runtime, graceSeconds, FAILOVER_RETRY_MS);
        });
    });
  }

  /** Completes a framework: its tasks killed, its offers rescinded, its resources recovered. */
  private async remove(frameworkId: string, reason: string, actor: Actor): Promise<void> {
    const runtime = this.state.frameworks.get(frameworkId);
    await this.offers.ofFramework(frameworkId, reason);
    this.inverseOffers.rescindOfFramework(frameworkId, reason);
    const live = await this.tasks.live({ frameworkId });
    const notRunning: TaskEntity[] = [];
    for (const t of live) {
      if (this.state.agents.get(t.agentId)?.socket && t.state !== TaskState.STAGING) this.outbox.kill(t.agentId, [t]);
      else notRunning.push(t);
    }
    await this.updates.masterUpdate(notRunning, TaskState.KILLED, 'REASON_FRAMEWORK_REMOVED', reason);
    const now = this.clock.date();
    await this.frameworks.markCompleted(frameworkId, now, (tx) =>
      this.audit.record(
        tx,
        actor,
        {
          action: 'framework.teardown',
          targetType: 'framework',
          targetId: frameworkId,
          before: { activeTasks: live.length },
          after: { state: FrameworkState.COMPLETED, reason },
        },
        now,
      ),
    );
    if (runtime) {
      runtime.failoverTimer?.cancel();
      this.state.allocator.removeFramework(frameworkId);
      this.state.frameworks.delete(frameworkId);
    }
    this.stream.emit('framework.removed', { frameworkId, reason });
    this.loop.requestCycle();
  }

  teardown(socket: FrameworkConnection, actor: Actor): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      fw.socket = undefined;
      await this.remove(fw.id, 'the framework tore itself down', actor);
      // Disconnect once the reply is out.
      this.clock.after(100, () => socket.disconnect(true));
    });
  }

  /** Operator teardown through the REST API; false when the framework is not known to the master. */
  teardownById(frameworkId: string, actor: Actor): Promise<boolean> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworks.get(frameworkId);
      if (!fw) return false;
      const socket = fw.socket;
      fw.socket = undefined;
      await this.remove(frameworkId, 'torn down by an operator', actor);
      socket?.disconnect(true);
      return true;
    });
  }

  /** Sends every connected framework a heartbeat. */
  heartbeat(): void {
    this.outbox.heartbeat();
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

  kill(socket: FrameworkConnection, msg: Kill): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      const task = await this.tasks.find(fw.id, msg.taskId);
      if (!task) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_TASK, `the framework has no task '${msg.taskId}'`);
      await this.killTask(task, msg.gracePeriodSeconds);
    });
  }

  /** An operator's kill (REST): as the framework's own, in the serial order. */
  killById(frameworkId: string, taskId: string, gracePeriodSeconds?: number): Promise<void> {
    return this.kernel.exclusive(async () => {
      const task = await this.tasks.find(frameworkId, taskId);
      if (task) await this.killTask(task, gracePeriodSeconds);
    });
  }

  /** SIGTERM then SIGKILL at the agent; a task not running anywhere yet is KILLED here. */
  private async killTask(task: TaskEntity, gracePeriodSeconds?: number): Promise<void> {
    if (isTerminal(task.state)) return;
    const connected = this.state.agents.get(task.agentId)?.socket !== undefined;
    if (connected && task.state !== TaskState.STAGING) {
      await this.updates.killing([task]);
      this.outbox.kill(task.agentId, [task], gracePeriodSeconds);
    } else {
      // Not running anywhere yet (or its agent is away): killed here.
      this.outbox.kill(task.agentId, [task], 0);
      await this.updates.masterUpdate([task], TaskState.KILLED, 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
    }
  }
}
