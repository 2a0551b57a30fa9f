/**
 * Status updates of tasks, in the master: from agents (recorded once, then forwarded to their
 * frameworks and operators), made by the master itself (tasks lost or killed before they ran),
 * acknowledged by frameworks, sent again until acknowledged, and reconciled on request; hands launches to agents.
 */
import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import { type Acknowledge, isTerminalTaskState, PROTOCOL_ERRORS, type RegisterAgent, type StatusUpdate } from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { OperatorStream } from '../realtime/operator-stream';
import { Metrics } from '../health/metrics';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentSocket, ClusterState, type FrameworkConnection, sessionOf, taskKey } from '../master/cluster-state';
import { type Batch, Kernel, type Pending } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { Outbox } from '../master/outbox';
import { type TaskEntity, TaskState } from './task.entity';
import { TasksRepository } from './tasks.repository';
import { countUpdates } from './task-update-metrics';
import { groupOf, launchOf } from './task-launch';
import { newerThanSent, statusUpdateOf } from './resend-order';

/** Answers of a reconciliation sent between looks at the connection's queue (it waits while that is backed up). */
export const RECONCILE_CHUNK = 100;

/** Only the agent a task runs on may report its state. */
const notOnAgent = (u: StatusUpdate) =>
  new ProtocolError(PROTOCOL_ERRORS.TASK_NOT_ON_AGENT, `task ${u.taskId} of framework ${u.frameworkId} does not run on agent ${u.agentId}`);

@Injectable()
export class TaskUpdates {
  private readonly logger = new Logger('TaskUpdates');
  /** Told of every task that ended, once its end has been recorded. */
  private readonly endedListeners: Array<(task: TaskEntity) => void> = [];
  /**
   * Per framework, from its (re-)subscription until the updates it has not acknowledged have
   * gone out again: the updates recorded meanwhile wait here, so that each task's updates reach
   * it in order.
   */
  private readonly held: () => Map<string, StatusUpdate[]>;

  constructor(
    private readonly metrics: Metrics,
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly tasks: TasksRepository,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: Outbox,
  ) {
    this.held = kernel.perTerm(() => new Map<string, StatusUpdate[]>());
    this.lookups = kernel.batch('exclusive', (batch) => this.flushLookups(batch));
    // One update or acknowledgement the database refuses fails alone; the others commit.
    this.statusWrites = kernel.batch(
      'statuses',
      async (batch) => {
        await this.apply(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      },
      { isolate: true },
    );
    this.acks = kernel.batch(
      'background',
      async (batch) => {
        await this.tasks.acknowledge(batch.map((b) => b.item));
        this.metrics.acknowledgements.inc(batch.length);
        for (const b of batch) b.resolve();
      },
      { isolate: true },
    );
  }

  /** Updates of tasks not live in memory, looked up once the writes in flight have settled. */
  private readonly lookups: Batch<StatusUpdate, void>;
  /** Status updates written in the `statuses` lane (those that arrive while one write is on go in the next). */
  private readonly statusWrites: Batch<{ task: TaskEntity; update: StatusUpdate }, void>;
  /** Acknowledgements, written in the `background` lane. */
  private readonly acks: Batch<{ frameworkId: string; taskId: string; updateUuid: string }, void>;

  /**
   * A status update from an agent. An update of a live task (in memory) goes straight to its
   * write lane, without a turn in the serial order: its write decides what it changes (the
   * task's end is acted on once its write has committed and moved the task), so it needs
   * nothing the serial order guards. Updates that arrive while one batch is being written go
   * into the next, so one statement records many (each once per updateUuid); the agents are
   * answered when it has committed. Updates of other tasks (ended, or unknown) are looked up
   * once the writes in flight have settled.
   */
  agentStatus(socket: AgentSocket, update: StatusUpdate): Promise<void> {
    const runtime = this.state.agentOf(socket);
    if (!runtime) return Promise.reject(new ProtocolError(PROTOCOL_ERRORS.NOT_SUBSCRIBED, 'register before sending status updates'));
    if (update.agentId !== runtime.id)
      return Promise.reject(
        new ProtocolError(PROTOCOL_ERRORS.TASK_NOT_ON_AGENT, `this agent is ${runtime.id}; it cannot report for agent ${update.agentId}`),
      );
    const task = this.state.liveTasks.get(update.frameworkId, update.taskId);
    if (task && task.agentId !== runtime.id) return Promise.reject(notOnAgent(update));
    return task ? this.statusWrites.push({ task, update }) : this.lookups.push(update);
  }

  /** Updates of tasks not live in memory: read once the writes in flight have committed, then written like the others. */
  private async flushLookups(batch: Array<Pending<StatusUpdate, void>>): Promise<void> {
    const pairs = [...new Map(batch.map((b) => [taskKey(b.item.frameworkId, b.item.taskId), b.item])).values()];
    const byKey = new Map((await this.tasks.findByKeys(pairs)).map((t) => [taskKey(t.frameworkId, t.taskId), t]));
    for (const b of batch) {
      const task = byKey.get(taskKey(b.item.frameworkId, b.item.taskId));
      // Unknown tasks: nothing to record; the agent may drop the update.
      if (!task) b.resolve();
      else if (task.agentId !== b.item.agentId) b.reject(notOnAgent(b.item));
      else
        this.statusWrites.push({ task, update: b.item }).then(
          () => b.resolve(),
          (err: unknown) => b.reject(err),
        );
    }
  }

  /**
   * Records status updates, then recovers the resources of tasks that ended and forwards the
   * updates to their frameworks and to operators. What moved is what the statement moved, so a
   * task's end is acted on once, however its rows were read.
   */
  private async apply(items: Array<{ task: TaskEntity; update: StatusUpdate }>): Promise<void> {
    if (!items.length) return;
    const { fresh, moved } = await this.tasks.recordUpdates(items.map((i) => ({ taskRef: i.task.id, update: i.update })));
    await this.tasks.recordImages(items);
    countUpdates(this.metrics, this.clock.date().getTime(), items, fresh, moved);
    const byId = new Map(items.map((i) => [i.task.id, i.task]));
    const { liveTasks, frameworks, agents } = this.state;
    for (const [id, state] of moved) {
      const task = byId.get(id);
      if (!task) continue;
      task.state = state;
      if (!isTerminalTaskState(state)) {
        const live = liveTasks.get(task.frameworkId, task.taskId);
        if (live) live.state = state;
        continue;
      }
      liveTasks.delete(task.frameworkId, task.taskId);
      for (const listener of this.endedListeners) listener(task);
      if (frameworks.has(task.frameworkId) && agents.get(task.agentId)?.inAllocator) {
        // Offered again by the next cycle, as in Mesos: recovered resources wait for the timer.
        this.state.allocator.recoverResources(task.frameworkId, task.agentId, task.role, Resources.of(task.resources));
      }
    }
    for (const { task, update } of items) {
      if (!fresh.has(update.updateUuid)) continue;
      const held = frameworks.has(task.frameworkId) ? this.held().get(task.frameworkId) : undefined;
      if (held) held.push(update);
      else this.outbox.update(task.frameworkId, update);
      this.stream.emit('task.updated', {
        frameworkId: task.frameworkId,
        taskId: task.taskId,
        agentId: task.agentId,
        state: update.state,
        reason: update.reason,
      });
    }
  }

  /** Calls `listener` with every task that ends (in the turn its end is recorded). */
  onEnded(listener: (task: TaskEntity) => void): void {
    this.endedListeners.push(listener);
  }

  /**
   * The state a task goes to when the master takes its agent away: `state` for most frameworks,
   * `partitionAware` for PARTITION_AWARE ones (UNREACHABLE for an agent out of contact, which may
   * come back; GONE_BY_OPERATOR for one an operator took away), as Mesos does.
   */
  async masterUpdateByFramework(
    tasks: TaskEntity[],
    state: TaskState,
    partitionAware: TaskState,
    reason: string,
    message: string,
  ): Promise<void> {
    const aware = (t: TaskEntity) => this.state.frameworks.get(t.frameworkId)?.capabilities.includes('PARTITION_AWARE') ?? false;
    await this.masterUpdate(
      tasks.filter((t) => !aware(t)),
      state,
      reason,
      message,
    );
    await this.masterUpdate(tasks.filter(aware), partitionAware, reason, message);
  }

  /**
   * A kill is under way: frameworks with the TASK_KILLING_STATE capability hear KILLING for their
   * running tasks before their end (as Mesos's executors send it); the others hear only the end.
   */
  async killing(tasks: TaskEntity[]): Promise<void> {
    const told = tasks.filter(
      (t) =>
        (t.state === TaskState.STARTING || t.state === TaskState.RUNNING) &&
        this.state.frameworks.get(t.frameworkId)?.capabilities.includes('TASK_KILLING_STATE'),
    );
    await this.masterUpdate(told, TaskState.KILLING, 'REASON_TASK_KILLED', 'a kill is under way');
  }

  /** Status updates the master makes itself (tasks lost, killed before launch, ...), in one statement. */
  async masterUpdate(tasks: TaskEntity[], state: TaskState, reason: string, message: string): Promise<void> {
    const timestamp = this.clock.date().toISOString();
    await this.apply(
      tasks.map((task) => ({
        task,
        update: {
          updateUuid: randomUUID(),
          frameworkId: task.frameworkId,
          taskId: task.taskId,
          agentId: task.agentId,
          state: state,
          reason,
          message,
          timestamp,
          source: 'SOURCE_MASTER' as const,
        },
      })),
    );
  }

  /**
   * After a (re-)registration: tasks the database thinks run there but the agent does not
   * report are LOST; tasks the agent runs that nobody wants any more are killed; STAGING tasks
   * it does not report are sent again. Returns the executors of the tasks sent again (they
   * start with them, and so are not ended for being absent).
   */
  async reconcileAgent(
    agentId: string,
    reported: RegisterAgent['tasks'] & object,
    live: TaskEntity[],
  ): Promise<Array<{ frameworkId: string; executorId: string }>> {
    const reportedKeys = new Set(reported.map((t) => taskKey(t.frameworkId, t.taskId)));
    const knownKeys = new Set(live.map((t) => taskKey(t.frameworkId, t.taskId)));
    // STAGING tasks may not have reached the agent yet; they are resent below.
    const missing = live.filter((t) => !reportedKeys.has(taskKey(t.frameworkId, t.taskId)) && t.state !== TaskState.STAGING);
    await this.masterUpdate(missing, TaskState.LOST, 'REASON_AGENT_RESTARTED', 'the agent re-registered without this task');
    // Tasks out of contact (UNREACHABLE) that the agent reports take their real state again.
    const reportedStates = new Map(reported.map((t) => [taskKey(t.frameworkId, t.taskId), t.state]));
    for (const t of live) {
      const now = reportedStates.get(taskKey(t.frameworkId, t.taskId));
      if (t.state === TaskState.UNREACHABLE && now !== undefined && !isTerminalTaskState(now))
        await this.masterUpdate([t], TaskState[now], 'REASON_AGENT_REREGISTERED', 'its agent is back in contact');
    }
    // A reported task in a terminal state has its last update on the way: nothing to do.
    this.outbox.kill(
      agentId,
      reported.filter((t) => !knownKeys.has(taskKey(t.frameworkId, t.taskId)) && !isTerminalTaskState(t.state)),
    );
    // A task group's tasks go again together, under their executor, as they went first.
    const groups = new Map<string, TaskEntity[]>();
    const resent = live.filter((t) => t.state === TaskState.STAGING && !reportedKeys.has(taskKey(t.frameworkId, t.taskId)));
    for (const t of resent) {
      const group = groupOf(t);
      if (group === undefined) this.sendLaunch(agentId, t);
      else {
        const key = taskKey(t.frameworkId, group);
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
    }
    for (const tasks of groups.values()) {
      const launches = tasks.map(launchOf);
      const executor = launches[0].task.executor;
      if (executor) this.outbox.launchGroup(agentId, { frameworkId: tasks[0].frameworkId, executor, tasks: launches.map((l) => l.task) });
    }
    return resent.flatMap((t) => {
      const executor = launchOf(t).task.executor;
      return executor ? [{ frameworkId: t.frameworkId, executorId: executor.executorId }] : [];
    });
  }

  /** Sends a stored task to its agent, if the agent is connected. */
  sendLaunch(agentId: string, task: TaskEntity): void {
    this.outbox.launch(agentId, launchOf(task));
  }

  /**
   * Acknowledgements are group-committed outside the serial order (they change no state the
   * allocator or the offers depend on): one statement marks a whole batch. An acknowledgement
   * lost in a crash only means the update is sent again. They are written in the `background`
   * lane: nobody waits for them, and written side by side with the status updates they slowed
   * those down by half.
   */
  async acknowledge(socket: FrameworkConnection, msg: Acknowledge): Promise<void> {
    const fw = this.state.frameworkOf(socket);
    await this.acks.push({ frameworkId: fw.id, taskId: msg.taskId, updateUuid: msg.updateUuid });
  }

  /**
   * Answers with the latest state of the tasks named, or of every live task of the framework
   * (implicit reconciliation). The tasks are read in a turn of the serial order; the answers go
   * out after it, RECONCILE_CHUNK at a time, each chunk at a turn of the event loop of its own and
   * once the connection's queue is no longer backed up (a reader that takes nothing is cut off,
   * kernel/outbound.ts), so that a large reconciliation queues little more than a chunk for a slow
   * reader and never holds up the master.
   */
  async reconcile(socket: FrameworkConnection, msg: { tasks: Array<{ taskId: string }> }): Promise<void> {
    const { fw, tasks } = await this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      const ids = msg.tasks.map((t) => t.taskId);
      return { fw, tasks: ids.length ? await this.tasks.findMany(fw.id, ids) : await this.tasks.live({ frameworkId: fw.id }) };
    });
    const known = new Set(tasks.map((t) => t.taskId));
    const now = this.clock.date().toISOString();
    const answers = function* (): Generator<StatusUpdate> {
      for (const t of tasks)
        yield {
          updateUuid: randomUUID(),
          frameworkId: fw.id,
          taskId: t.taskId,
          agentId: t.agentId,
          state: t.state,
          reason: 'REASON_RECONCILIATION',
          timestamp: t.updatedAt.toISOString(),
          source: 'SOURCE_MASTER',
        };
      for (const t of msg.tasks)
        if (!known.has(t.taskId))
          yield {
            updateUuid: randomUUID(),
            frameworkId: fw.id,
            taskId: t.taskId,
            agentId: 'unknown',
            // Mesos: UNKNOWN for a PARTITION_AWARE framework, LOST for the others.
            state: fw.capabilities.includes('PARTITION_AWARE') ? 'UNKNOWN' : 'LOST',
            reason: 'REASON_RECONCILIATION',
            message: 'the task is unknown',
            timestamp: now,
            source: 'SOURCE_MASTER',
          };
    };
    const queue = sessionOf(socket).outbound;
    let sent = 0;
    for (const status of answers()) {
      if (sent % RECONCILE_CHUNK === 0) {
        if (queue?.backedUp && !(await queue.drained())) return;
        // The event loop's turn for everything else (pings, heartbeats, other calls) between chunks.
        if (sent > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // The framework went, or subscribed again elsewhere: the rest is no longer this connection's.
      if (fw.socket !== socket || this.state.frameworks.get(fw.id) !== fw) return;
      this.outbox.update(fw.id, status);
      sent++;
    }
  }

  /** A framework (re-)subscribed: its updates are held back until `resync` has sent the unacknowledged ones again. */
  hold(frameworkId: string): void {
    this.held().set(frameworkId, []);
  }

  /**
   * After a (re-)subscription: the framework's unacknowledged updates go out again (each task's
   * latest), then those recorded meanwhile that are newer, so each task's updates arrive in order
   * and never an older one after a newer one. Should the read fail, the periodic resend delivers them.
   */
  async resync(frameworkId: string): Promise<void> {
    const held = this.held().get(frameworkId);
    if (!held) return;
    const holding = this.held();
    try {
      const fw = this.state.frameworks.get(frameworkId);
      if (!fw) return;
      const sent = fw.socket ? await this.resendUnacknowledged(frameworkId, 0) : new Set<string>();
      for (const update of newerThanSent(held, sent)) this.outbox.update(frameworkId, update);
    } catch (err) {
      this.logger.error({ err, frameworkId }, 'resending unacknowledged updates after a subscription failed; the periodic resend will');
    } finally {
      if (holding.get(frameworkId) === held) holding.delete(frameworkId);
    }
  }

  /** Status updates not yet acknowledged go out again (each task's latest, oldest first); resolves with their uuids. */
  async resendUnacknowledged(frameworkId?: string, minAgeSeconds = 1): Promise<Set<string>> {
    const sent = new Set<string>();
    const connected = [...this.state.frameworks.values()].filter((f) => f.socket && (!frameworkId || f.id === frameworkId));
    if (!connected.length) return sent;
    const rows = await this.tasks.unacknowledged(
      connected.map((f) => f.id),
      minAgeSeconds,
    );
    for (const r of rows) {
      sent.add(r.updateUuid);
      this.outbox.update(r.frameworkId, statusUpdateOf(r));
    }
    return sent;
  }
}
