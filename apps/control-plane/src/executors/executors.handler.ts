/**
 * Executors in the master: started with the first task that names them on an agent (their own
 * resources taken from the offer with it and accounted to the framework until they end), ended
 * when their agent says they exited, when the agent re-registers without them, when their agent
 * or framework goes; and the messages between schedulers and their executors, both ways.
 */
import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import {
  type ExecutorCall,
  type ExecutorExited,
  type ExecutorSpec,
  type FrameworkMessage,
  PROTOCOL_ERRORS,
  type RunningExecutorReport,
  type SchedulerMessage,
} from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Metrics } from '../health/metrics';
import { CLOCK, type Clock } from '../kernel/clock';
import { EventualWrites } from '../kernel/eventual-writes';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { type AgentSocket, ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { ExecutorRegistry, type ExecutorRuntime, executorKey } from '../master/executor-registry';
import { Outbox } from '../master/outbox';
import { OperatorStream } from '../realtime/operator-stream';
import { ExecutorState } from './executor.entity';
import { type ExecutorEnd, ExecutorsRepository } from './executors.repository';

/** Largest framework message, either way (Mesos's own limit is the master's message size; 1 MiB here). */
export const MAX_FRAMEWORK_MESSAGE_BYTES = 1024 * 1024;

/** The same ExecutorInfo: equal field by field, whatever the order of the keys. */
export function sameExecutor(a: ExecutorSpec, b: ExecutorSpec): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== undefined)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** An executor to start: the accept's first task naming it on its agent. */
export interface NewExecutor {
  agentId: string;
  frameworkId: string;
  spec: ExecutorSpec;
  role: string;
}

@Injectable()
export class Executors {
  private readonly logger = new Logger('Executors');

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: ExecutorRegistry,
    private readonly executors: ExecutorsRepository,
    private readonly outbox: Outbox,
    private readonly writes: EventualWrites,
    private readonly metrics: Metrics,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The running executor a task names on an agent (undefined: none runs, the task starts it).
   * A different ExecutorInfo under the id of a running one is refused (EXECUTOR_MISMATCH), as
   * Mesos refuses it TASK_ERROR.
   */
  running(agentId: string, frameworkId: string, spec: ExecutorSpec, taskId: string): ExecutorRuntime | undefined {
    const found = this.state.executors.find(agentId, frameworkId, spec.executorId);
    if (found && !sameExecutor(found.spec, spec))
      throw new ProtocolError(
        PROTOCOL_ERRORS.EXECUTOR_MISMATCH,
        `task '${taskId}' names executor '${spec.executorId}' with an ExecutorInfo that differs from the one it runs with on agent ${agentId}; give the same ExecutorInfo, or another executor id`,
        { taskId, executorId: spec.executorId },
      );
    return found;
  }

  /**
   * Executors an accept starts, in its turn: known at once, so that a later accept of the same
   * batch finds them running. Recorded with `record` once the accept is taken, or forgotten with
   * `forget` if it is not.
   */
  start(list: NewExecutor[]): ExecutorRuntime[] {
    const at = this.clock.date();
    const started = list.map((e): ExecutorRuntime => ({
      id: executorKey(e.agentId, e.frameworkId, e.spec.executorId),
      rowId: randomUUID(),
      agentId: e.agentId,
      frameworkId: e.frameworkId,
      executorId: e.spec.executorId,
      spec: e.spec,
      role: e.role,
      resources: e.spec.resources,
      startedAt: at,
    }));
    for (const e of started) this.registry.launched(e);
    return started;
  }

  /** Executors an accept that was refused before its write had started (their resources never left its offers). */
  forget(started: Iterable<ExecutorRuntime>): void {
    for (const e of started) this.registry.ended(e.id);
  }

  /**
   * Writes executors that accepts started. The accepts' own write calls it (in the launches lane,
   * ahead of their tasks, one statement for a whole batch of accepts); writing the same
   * executor twice is a no-op, so a batch written again entry by entry is safe.
   */
  async insertStarted(started: ExecutorRuntime[]): Promise<void> {
    await this.executors.insert(
      started.map((e) => ({
        id: e.rowId,
        agentId: e.agentId,
        frameworkId: e.frameworkId,
        executorId: e.executorId,
        spec: e.spec,
        role: e.role,
        resources: e.resources,
        state: ExecutorState.RUNNING,
        startedAt: e.startedAt,
        endedAt: null,
        endReason: null,
        exitStatus: null,
      })),
    );
  }

  /** Executors an accept started were taken with it: the views of their agents change. */
  announce(started: ExecutorRuntime[]): void {
    for (const e of started) this.stream.emit('agent.updated', { agentId: e.agentId });
  }

  /** The executors known from the database at start (before the agents join the allocator, which counts their resources). */
  async restore(): Promise<void> {
    for (const row of await this.executors.running())
      this.registry.launched({
        id: executorKey(row.agentId, row.frameworkId, row.executorId),
        rowId: row.id,
        agentId: row.agentId,
        frameworkId: row.frameworkId,
        executorId: row.executorId,
        spec: row.spec,
        role: row.role,
        resources: row.resources,
        startedAt: row.startedAt,
      });
  }

  /**
   * Executors that end: forgotten, their resources back to the allocator (unless their agent or
   * framework is leaving it: `recover` false), their end recorded.
   */
  end(executors: Iterable<ExecutorRuntime>, end: ExecutorEnd, recover = true): void {
    const ended = [...executors];
    if (!ended.length) return;
    const { allocator, frameworks, agents } = this.state;
    for (const e of ended) {
      this.registry.ended(e.id);
      this.metrics.executorEnds.inc({ reason: end.reason });
      if (recover && frameworks.has(e.frameworkId) && agents.get(e.agentId)?.inAllocator)
        allocator.recoverResources(e.frameworkId, e.agentId, e.role, Resources.of(e.resources));
      this.stream.emit('agent.updated', { agentId: e.agentId });
    }
    const at = this.clock.date();
    void this.writes.write('launches', `recording ${ended.length} executor(s) ended`, () =>
      this.executors.end(
        ended.map((e) => e.rowId),
        end,
        at,
      ),
    );
  }

  /**
   * An agent says one of its executors exited (Mesos's ExitedExecutorMessage): its resources
   * are freed and its framework told (FAILURE). Only the agent's own executors: the message
   * names a framework and an executor id, the agent is the caller's. One it does not run (any
   * more) changes nothing: the agent may send it again.
   */
  exited(socket: AgentSocket, msg: ExecutorExited): Promise<void> {
    return this.kernel.serial(async () => {
      const agent = this.agentOf(socket);
      const e = this.state.executors.find(agent, msg.frameworkId, msg.executorId);
      if (!e) return;
      const reason = msg.reason ?? 'REASON_EXECUTOR_TERMINATED';
      const exitStatus = {
        ...(msg.exitCode !== undefined ? { exitCode: msg.exitCode } : {}),
        ...(msg.signal !== undefined ? { signal: msg.signal } : {}),
        ...(msg.message !== undefined ? { message: msg.message } : {}),
      };
      this.end([e], { reason, exitStatus });
      this.outbox.executorFailure(e.frameworkId, { agentId: agent, executorId: e.executorId, ...exitStatus, reason });
      this.logger.log({ agentId: agent, frameworkId: e.frameworkId, executorId: e.executorId, reason }, 'executor exited');
      await Promise.resolve();
    });
  }

  /** An executor's message to its scheduler, through its agent (only the agent's own executors). */
  async fromExecutor(socket: AgentSocket, msg: FrameworkMessage): Promise<void> {
    const agent = this.agentOf(socket);
    const e = this.state.executors.find(agent, msg.frameworkId, msg.executorId);
    if (!e) throw unknownExecutor(agent, msg.executorId);
    const bytes = messageBytes(msg.data);
    this.metrics.executorMessages.inc({ direction: 'to_scheduler' });
    this.metrics.executorMessageBytes.inc({ direction: 'to_scheduler' }, bytes);
    this.outbox.executorMessage(e.frameworkId, { agentId: agent, executorId: e.executorId, data: msg.data });
    await Promise.resolve();
  }

  /** The scheduler's SHUTDOWN: its own executor, told to end; its resources are freed once its agent says it exited. */
  async shutdown(socket: FrameworkConnection, call: ExecutorCall): Promise<void> {
    const e = this.ownExecutor(socket, call);
    this.outbox.shutdownExecutor(e.agentId, e.frameworkId, e.executorId);
    await Promise.resolve();
  }

  /** The scheduler's MESSAGE to one of its own executors, through its agent. */
  async toExecutor(socket: FrameworkConnection, msg: SchedulerMessage): Promise<void> {
    const e = this.ownExecutor(socket, msg);
    const bytes = messageBytes(msg.data);
    this.metrics.executorMessages.inc({ direction: 'to_executor' });
    this.metrics.executorMessageBytes.inc({ direction: 'to_executor' }, bytes);
    this.outbox.frameworkMessage(e.agentId, { frameworkId: e.frameworkId, executorId: e.executorId, data: msg.data });
    await Promise.resolve();
  }

  /**
   * After an agent's (re-)registration, in its turn: executors the master thinks run there but
   * the agent does not report have ended; executors it runs that the master does not know
   * (their framework gone) are shut down. Those of tasks sent to it again (`starting`) are kept.
   */
  reconcileAgent(
    agentId: string,
    reported: readonly RunningExecutorReport[],
    starting: ReadonlyArray<{ frameworkId: string; executorId: string }> = [],
  ): void {
    const reportedKeys = new Set([...reported, ...starting].map((r) => executorKey(agentId, r.frameworkId, r.executorId)));
    const missing = [...this.state.executors.onAgent(agentId)].filter((e) => !reportedKeys.has(e.id));
    this.end(missing, { reason: 'REASON_EXECUTOR_TERMINATED', exitStatus: { message: 'its agent re-registered without it' } }, false);
    for (const e of missing) this.outbox.executorFailure(e.frameworkId, { agentId, executorId: e.executorId });
    for (const r of reported)
      if (!this.state.executors.find(agentId, r.frameworkId, r.executorId))
        this.outbox.shutdownExecutor(agentId, r.frameworkId, r.executorId);
  }

  /** An agent taken out: its executors end with it (the allocator forgets the agent). */
  agentRemoved(agentId: string, reason: string): void {
    this.end(this.state.executors.onAgent(agentId), { reason: 'REASON_AGENT_REMOVED', exitStatus: { message: reason } }, false);
  }

  /** A framework's end (teardown, failover timeout): each of its executors is shut down and ends. */
  frameworkRemoved(frameworkId: string, reason: string): void {
    const mine = [...this.state.executors.ofFramework(frameworkId)];
    for (const e of mine) this.outbox.shutdownExecutor(e.agentId, e.frameworkId, e.executorId);
    this.end(mine, { reason: 'REASON_FRAMEWORK_REMOVED', exitStatus: { message: reason } }, false);
  }

  private agentOf(socket: AgentSocket): string {
    const runtime = this.state.agentOf(socket);
    if (!runtime) throw new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, 'register before reporting executors');
    return runtime.id;
  }

  /** The caller's executor on the agent named: another framework's is unknown to it. */
  private ownExecutor(socket: FrameworkConnection, call: ExecutorCall): ExecutorRuntime {
    const fw = this.state.frameworkOf(socket);
    const e = this.state.executors.find(call.agentId, fw.id, call.executorId);
    if (!e) throw unknownExecutor(call.agentId, call.executorId);
    return e;
  }
}

const unknownExecutor = (agentId: string, executorId: string) =>
  new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_EXECUTOR, `no executor '${executorId}' of this framework runs on agent ${agentId}`, {
    agentId,
    executorId,
  });

/** A message's size once decoded; over the limit is INVALID_MESSAGE. */
function messageBytes(data: string): number {
  const bytes = Buffer.byteLength(data, 'base64');
  if (bytes > MAX_FRAMEWORK_MESSAGE_BYTES)
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      `a framework message holds at most ${MAX_FRAMEWORK_MESSAGE_BYTES} bytes (this one ${bytes})`,
    );
  return bytes;
}
