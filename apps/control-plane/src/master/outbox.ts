/**
 * Every message the master sends to agents and frameworks, in one place (executors' included). Agents are reached on
 * their /agents socket; frameworks on their connection, whichever protocol it speaks (a
 * socket.io socket on /frameworks, or a Mesos scheduler API stream that turns each event into
 * Mesos's: mesos/mesos-stream.ts). A message to a party that is not connected is dropped: what
 * matters is recorded and reaches it again when it comes back (resends, reconciliation, offers
 * of the next cycle).
 */
import type {
  AgentEvents,
  ExecutorFailure,
  FrameworkEvents,
  FrameworkMessage,
  InverseOffer,
  LaunchGroup,
  LaunchTask,
  Offer,
  OperationStatus,
  SchedulerMessage,
  StatusUpdate,
} from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentSocket, ClusterState } from './cluster-state';

/** Seconds between SIGTERM and SIGKILL of a killed task, unless its kill names another. */
export const KILL_GRACE_SECONDS = 5;

/** A task to kill, as its agent knows it. */
export interface TaskRef {
  frameworkId: string;
  taskId: string;
  /** Its kill policy's grace period, used when the kill names none. */
  killGracePeriodSeconds?: number | null;
}

@Injectable()
export class Outbox {
  constructor(
    private readonly state: ClusterState,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Launches a task on its agent (with its framework's checkpoint flag, for the executor it may start). */
  launch(agentId: string, msg: LaunchTask): void {
    this.agentSocket(agentId)?.emit('launch', { ...msg, ...this.checkpointOf(msg.frameworkId) });
  }

  /** Launches a task group under one executor on its agent. */
  launchGroup(agentId: string, msg: LaunchGroup): void {
    this.agentSocket(agentId)?.emit('launchGroup', { ...msg, ...this.checkpointOf(msg.frameworkId) });
  }

  private checkpointOf(frameworkId: string): { checkpoint?: boolean } {
    const checkpoint = this.state.frameworks.get(frameworkId)?.checkpoint;
    return checkpoint === undefined ? {} : { checkpoint };
  }

  /** Tells an agent to shut an executor down (the scheduler's SHUTDOWN, its framework's end). */
  shutdownExecutor(agentId: string, frameworkId: string, executorId: string): void {
    this.agentSocket(agentId)?.emit('shutdownExecutor', { frameworkId, executorId });
  }

  /** Hands a scheduler's message to one of its executors, through the executor's agent. */
  frameworkMessage(agentId: string, msg: FrameworkMessage): void {
    this.agentSocket(agentId)?.emit('frameworkMessage', msg);
  }

  /** Hands an executor's message to its framework. */
  executorMessage(frameworkId: string, msg: SchedulerMessage): void {
    this.toFramework(frameworkId, 'message', msg);
  }

  /** Tells a framework one of its executors ended. */
  executorFailure(frameworkId: string, failure: ExecutorFailure): void {
    this.toFramework(frameworkId, 'failure', failure);
  }

  /**
   * Tells an agent to kill tasks (SIGTERM, then SIGKILL after `gracePeriodSeconds`, else each
   * task's kill policy, else KILL_GRACE_SECONDS). `agent` is the agent's id, or the socket it had
   * when the master decided (an agent being removed).
   */
  kill(agent: string | AgentSocket | undefined, tasks: Iterable<TaskRef>, gracePeriodSeconds?: number): void {
    const socket = typeof agent === 'string' ? this.agentSocket(agent) : agent;
    if (!socket) return;
    for (const t of tasks)
      socket.emit('kill', {
        frameworkId: t.frameworkId,
        taskId: t.taskId,
        gracePeriodSeconds: gracePeriodSeconds ?? t.killGracePeriodSeconds ?? KILL_GRACE_SECONDS,
      });
  }

  /** Sends a framework offers. */
  offers(frameworkId: string, offers: Offer[]): void {
    this.toFramework(frameworkId, 'offers', { offers });
  }

  /** Tells a framework an offer it was sent is withdrawn. */
  rescind(frameworkId: string, offerId: string, reason: string): void {
    this.toFramework(frameworkId, 'rescind', { offerId, reason });
  }

  /** Sends a framework a status update of one of its tasks. */
  update(frameworkId: string, status: StatusUpdate): void {
    this.toFramework(frameworkId, 'update', { status });
  }

  /** Sends a framework the status of an operation it named with an id (operations/operation-feedback.handler.ts). */
  operationStatus(frameworkId: string, status: OperationStatus): void {
    this.toFramework(frameworkId, 'operationStatus', { status });
  }

  /** Sends a framework inverse offers (its resources on a machine going down for maintenance). */
  inverseOffers(frameworkId: string, inverseOffers: InverseOffer[]): void {
    this.toFramework(frameworkId, 'inverseOffers', { inverseOffers });
  }

  /** Tells a framework an inverse offer is withdrawn. */
  rescindInverseOffer(frameworkId: string, inverseOfferId: string, reason: string): void {
    this.toFramework(frameworkId, 'rescindInverseOffer', { inverseOfferId, reason });
  }

  /** Tells every connected framework an agent is gone. */
  agentLost(agentId: string, reason: string): void {
    for (const fw of this.state.frameworks.values()) fw.socket?.emit('agentLost', { agentId, reason });
  }

  /** Sends every connected framework a heartbeat. */
  heartbeat(): void {
    const at = this.clock.date().toISOString();
    for (const fw of this.state.frameworks.values()) fw.socket?.emit('heartbeat', { at });
  }

  /**
   * Asks an agent a question answered in the acknowledgement (sandbox files, volumes): its reply, or
   * undefined when the agent is not connected here or did not answer within `timeoutMs`.
   */
  async ask<E extends 'filesBrowse' | 'filesRead' | 'createVolume' | 'destroyVolume'>(
    agentId: string,
    event: E,
    payload: Parameters<AgentEvents[E]>[0],
    timeoutMs: number,
  ): Promise<Parameters<Parameters<AgentEvents[E]>[1]>[0] | undefined> {
    const socket = this.agentSocket(agentId);
    if (!socket) return undefined;
    try {
      // socket.io's typing of acknowledged events is generic over every event; the reply's type is E's.
      const emitter = socket.timeout(timeoutMs) as unknown as { emitWithAck(e: string, p: unknown): Promise<unknown> };
      return (await emitter.emitWithAck(event, payload)) as Parameters<Parameters<AgentEvents[E]>[1]>[0];
    } catch {
      return undefined;
    }
  }

  private agentSocket(agentId: string): AgentSocket | undefined {
    return this.state.agents.get(agentId)?.socket;
  }

  private toFramework<E extends keyof FrameworkEvents>(frameworkId: string, event: E, ...args: Parameters<FrameworkEvents[E]>): void {
    this.state.frameworks.get(frameworkId)?.socket?.emit(event, ...args);
  }
}
