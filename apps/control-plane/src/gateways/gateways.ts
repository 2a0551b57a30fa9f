/** The /agents and /frameworks namespaces: each protocol call handed to the handler of its noun. */
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { z } from 'zod';
import {
  Accept,
  type AgentCalls,
  type AgentEvents,
  type FrameworkCalls,
  type FrameworkEvents,
  Acknowledge,
  AcknowledgeOperationStatus,
  AgentHeartbeat,
  AGENTS_NAMESPACE,
  Decline,
  ExecutorCall,
  ExecutorExited,
  FrameworkMessage,
  FRAMEWORKS_NAMESPACE,
  InverseOfferAnswer,
  Kill,
  Reconcile,
  ReconcileOperations,
  RegisterAgent,
  RolesCall,
  SchedulerMessage,
  StatusUpdate,
  Subscribe,
  UpdateAgent,
  UpdateFramework,
} from '@arbiter/contracts';
import { AgentLiveness } from '../agent-lifecycle/agent-liveness.handler';
import { AgentMembership } from '../agent-lifecycle/agent-membership.handler';
import { AgentSessions } from '../agent-lifecycle/agent-sessions.handler';
import { PrincipalKind } from '../auth/principal.entity';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { OperatorStream } from '../realtime/operator-stream';
import { FrameworkFailover } from '../framework-lifecycle/framework-failover.handler';
import { FrameworkRemoval } from '../framework-lifecycle/framework-removal.handler';
import { FrameworkSessions } from '../framework-lifecycle/framework-sessions.handler';
import { TaskKills } from '../tasks/task-kills.handler';
import { OfferAnswers } from '../offers/offer-answers.handler';
import { OperationFeedback } from '../operations/operation-feedback.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { Executors } from '../executors/executors.handler';
import { on } from './gateway.util';
import { type AuthedSocketData, Realtime } from '../realtime/realtime';

const Empty = z.object({}).strict();

@Injectable()
export class Gateways implements OnApplicationBootstrap {
  private readonly logger = new Logger('Gateways');

  constructor(
    private readonly realtime: Realtime,
    private readonly stream: OperatorStream,
    private readonly agents: AgentSessions,
    private readonly liveness: AgentLiveness,
    private readonly membership: AgentMembership,
    private readonly frameworks: FrameworkSessions,
    private readonly failover: FrameworkFailover,
    private readonly removal: FrameworkRemoval,
    private readonly kills: TaskKills,
    private readonly answers: OfferAnswers,
    private readonly tasks: TaskUpdates,
    private readonly inverseOffers: InverseOffers,
    private readonly executors: Executors,
    private readonly operations: OperationFeedback,
  ) {}

  onApplicationBootstrap(): void {
    this.stream.open();
    const failed = (what: string) => (err: unknown) => this.logger.error({ err }, what);

    const agents = this.realtime.namespace(AGENTS_NAMESPACE, [PrincipalKind.AGENT, PrincipalKind.ADMIN], { leaderOnly: true }) as Namespace<
      AgentCalls,
      AgentEvents
    >;
    agents.on('connection', (socket) => {
      const actor = (socket.data as AuthedSocketData).actor;
      on(socket, 'register', RegisterAgent, (msg) => this.agents.register(socket, msg, actor));
      on(socket, 'heartbeat', AgentHeartbeat, (msg) => this.liveness.heartbeat(socket, msg));
      on(socket, 'status', StatusUpdate, (msg) => {
        // A status update is a sign of life too.
        this.liveness.heartbeat(socket);
        return this.tasks.agentStatus(socket, msg);
      });
      on(socket, 'update', UpdateAgent, (msg) => this.membership.update(socket, msg, actor));
      on(socket, 'executorExited', ExecutorExited, (msg) => this.executors.exited(socket, msg));
      on(socket, 'executorMessage', FrameworkMessage, (msg) => this.executors.fromExecutor(socket, msg));
      socket.on('disconnect', () => {
        if (this.realtime.sessionsOpen) void this.liveness.disconnected(socket).catch(failed('agent disconnection'));
      });
    });

    const frameworks = this.realtime.namespace(FRAMEWORKS_NAMESPACE, [PrincipalKind.FRAMEWORK, PrincipalKind.ADMIN], {
      leaderOnly: true,
    }) as Namespace<FrameworkCalls, FrameworkEvents>;
    frameworks.on('connection', (socket) => {
      const actor = (socket.data as AuthedSocketData).actor;
      on(socket, 'subscribe', Subscribe, (msg) => this.frameworks.subscribe(socket, msg, actor));
      on(socket, 'updateFramework', UpdateFramework, (msg) => this.frameworks.update(socket, msg, actor));
      on(socket, 'accept', Accept, (msg) => this.answers.accept(socket, msg));
      on(socket, 'decline', Decline, (msg) => this.answers.decline(socket, msg));
      on(socket, 'suppress', RolesCall, (msg) => this.frameworks.suppress(socket, msg));
      on(socket, 'revive', RolesCall, (msg) => this.frameworks.revive(socket, msg));
      on(socket, 'kill', Kill, (msg) => this.kills.kill(socket, msg));
      on(socket, 'acknowledge', Acknowledge, (msg) => this.tasks.acknowledge(socket, msg));
      on(socket, 'reconcile', Reconcile, (msg) => this.tasks.reconcile(socket, msg));
      on(socket, 'inverseOffer', InverseOfferAnswer, (msg) => this.inverseOffers.answer(socket, msg));
      on(socket, 'teardown', Empty, () => this.removal.teardown(socket, actor));
      on(socket, 'shutdownExecutor', ExecutorCall, (msg) => this.executors.shutdown(socket, msg));
      on(socket, 'message', SchedulerMessage, (msg) => this.executors.toExecutor(socket, msg));
      on(socket, 'acknowledgeOperationStatus', AcknowledgeOperationStatus, (msg) => this.operations.acknowledge(socket, msg));
      on(socket, 'reconcileOperations', ReconcileOperations, (msg) => this.operations.reconcile(socket, msg));
      socket.on('disconnect', () => {
        if (this.realtime.sessionsOpen) void this.failover.disconnected(socket).catch(failed('framework disconnection'));
      });
    });
  }
}
