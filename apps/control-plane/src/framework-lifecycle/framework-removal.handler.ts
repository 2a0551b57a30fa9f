/**
 * A framework's end (torn down by itself or an operator, or past its failover timeout): its
 * tasks killed, its offers and inverse offers rescinded, its resources recovered, COMPLETED
 * and audited.
 */
import { Inject, Injectable } from '@nestjs/common';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { InverseOffers } from '../allocation/inverse-offers.handler';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../auth/auth.actor';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { FrameworkRegistry } from '../master/framework-registry';
import { Kernel } from '../kernel/kernel';
import { Outbox } from '../master/outbox';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { TasksRepository } from '../tasks/tasks.repository';
import { FrameworkState } from '../frameworks/framework.entity';
import { FrameworkSessionsRepository } from './framework-sessions.repository';
import { OperationFeedback } from '../operations/operation-feedback.handler';
import { Executors } from '../executors/executors.handler';

@Injectable()
export class FrameworkRemoval {
  private readonly removedListeners: Array<(frameworkId: string) => void> = [];

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: FrameworkRegistry,
    private readonly frameworks: FrameworkSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly offers: OfferRescinds,
    private readonly inverseOffers: InverseOffers,
    private readonly loop: AllocationLoop,
    private readonly outbox: Outbox,
    private readonly stream: OperatorStream,
    private readonly audit: AuditService,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly executors: Executors,
    private readonly operations: OperationFeedback,
  ) {}

  /** Calls `listener` with every framework removed (in the turn it is removed). */
  onRemoved(listener: (frameworkId: string) => void): void {
    this.removedListeners.push(listener);
  }

  /** Completes a framework: its tasks killed, its offers rescinded, its resources recovered. */
  async remove(frameworkId: string, reason: string, actor: Actor): Promise<void> {
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
    // Each executor is told to shut down (its tasks end with it) and its record ends.
    this.executors.frameworkRemoved(frameworkId, reason);
    const now = this.clock.date();
    await this.frameworks.markCompleted(frameworkId, now, async (tx) => {
      // Its operation statuses are no one's to acknowledge any more.
      await this.operations.forget(tx, frameworkId);
      await this.audit.record(
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
      );
    });
    // While the framework is still known: /events shows it to whoever may see the framework.
    this.stream.emit('framework.removed', { frameworkId, reason });
    if (runtime) {
      for (const listener of this.removedListeners) listener(frameworkId);
      this.state.allocator.removeFramework(frameworkId);
      this.registry.remove(frameworkId);
    }
    this.loop.requestCycle();
  }

  teardown(socket: FrameworkConnection, actor: Actor): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      this.registry.disconnected(fw.id);
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
      this.registry.disconnected(frameworkId);
      await this.remove(frameworkId, 'torn down by an operator', actor);
      socket?.disconnect(true);
      return true;
    });
  }
}
