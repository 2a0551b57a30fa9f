/**
 * Frameworks' answers to offers: accepts (LAUNCH, RESERVE, UNRESERVE) and declines, checked
 * against the outstanding offers, group-committed, and only then answered and launched.
 */
import { randomUUID } from 'node:crypto';
import { Resources } from '@arbiter/allocator';
import { type Accept, type AcceptReply, type Decline, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState, taskKey, type FrameworkConnection } from '../master/cluster-state';
import { Metrics } from '../health/metrics';
import { EventualWrites } from '../kernel/eventual-writes';
import { type Batch, Kernel, type Pending, type WriteLane } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { Outbox } from '../master/outbox';
import { TaskUpdates } from '../tasks/task-updates.handler';
import { type TaskEntity, TaskState } from '../tasks/task.entity';
import { storedSpec } from '../tasks/task-launch';
import { OfferState } from './offer.entity';
import { OffersRepository, type RefusedAnswer } from './offers.repository';
import { AnswerPlans, type PlannedAccept } from './answer-plans';
import { ReservationAccepts } from './reservation-accepts.handler';
import { isVolumeAccept, VolumeAccepts } from './volume-accepts.handler';
import { Executors } from '../executors/executors.handler';
import type { ExecutorRuntime } from '../master/executor-registry';

/** An accept or a decline, as it arrived. */
type OfferAnswer = { socket: FrameworkConnection } & ({ accept: Accept; decline?: undefined } | { decline: Decline; accept?: undefined });
type AnswerEntry = Pending<OfferAnswer, AcceptReply | undefined>;
interface AnswerWrite {
  /** Each answer's offers, with how they close, and the tasks it launches. */
  answers: Array<{ offers: Map<string, OfferState>; tasks: TaskEntity[] }>;
  /** When the answers were taken (their offers close then). */
  at: Date;
  /** Executors the answers start, written ahead of their tasks. */
  executors: ExecutorRuntime[];
}

@Injectable()
export class OfferAnswers {
  /** Answers, checked in the serial order in batches (those that arrive while one batch is checked go in the next). */
  private readonly answers: Batch<OfferAnswer, AcceptReply | undefined>;
  private readonly launchWrites: Batch<AnswerWrite, RefusedAnswer[]>;
  private readonly declineWrites: Batch<AnswerWrite, RefusedAnswer[]>;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly offers: OffersRepository,
    private readonly plans: AnswerPlans,
    private readonly reservationAccepts: ReservationAccepts,
    private readonly updates: TaskUpdates,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly writes: EventualWrites,
    private readonly metrics: Metrics,
    private readonly outbox: Outbox,
    private readonly executors: Executors,
    private readonly volumeAccepts: VolumeAccepts,
  ) {
    this.answers = kernel.batch('serial', (batch) => this.flushAnswers(batch));
    this.launchWrites = this.answerWrites('launches');
    this.declineWrites = this.answerWrites('background');
  }

  /**
   * Answers to offers (accepts and declines) are group-committed: those that arrive while a
   * batch is being written go into the next one. A batch is checked in arrival order against
   * the outstanding offers (an offer an earlier answer of the batch took is gone for the later
   * ones, a task id used earlier is a duplicate), written in one statement, and only then
   * answered and launched.
   */
  async accept(socket: FrameworkConnection, msg: Accept): Promise<AcceptReply> {
    return (await this.answers.push({ socket, accept: msg })) ?? { launched: [] };
  }

  async decline(socket: FrameworkConnection, msg: Decline): Promise<void> {
    await this.answers.push({ socket, decline: msg });
  }

  /** Launches, plain accepts and declines go out together; an accept that reserves or unreserves runs alone, in its turn. */
  private async flushAnswers(batch: AnswerEntry[]): Promise<void> {
    let group: AnswerEntry[] = [];
    for (const entry of batch) {
      const { socket, accept } = entry.item;
      if (!accept || accept.operations.every((op) => op.type === 'LAUNCH' || op.type === 'LAUNCH_GROUP')) {
        group.push(entry);
        continue;
      }
      await this.answerOffers(group);
      group = [];
      const handler = isVolumeAccept(accept) ? this.volumeAccepts : this.reservationAccepts;
      await handler.accept(socket, accept).then(
        (reply) => entry.resolve(reply),
        (err: unknown) => entry.reject(err),
      );
    }
    await this.answerOffers(group);
  }

  private async answerOffers(entries: AnswerEntry[]): Promise<void> {
    if (!entries.length) return;
    const plans: Array<PlannedAccept & { entry: AnswerEntry }> = [];
    for (const entry of entries) {
      const { socket, accept, decline } = entry.item;
      try {
        const fw = this.state.frameworkOf(socket);
        plans.push({ entry, ...(accept ? await this.plans.accept(fw, accept) : this.plans.decline(fw, decline)) });
      } catch (err) {
        entry.reject(err);
      }
    }
    // Task ids of live tasks and of launches being written are known here; one used by a task
    // that has ended is found by the write itself (see OffersRepository.writeAnswers).
    const used = new Set<string>();
    for (const p of plans)
      for (const t of p.tasks) {
        const key = taskKey(p.fw.id, t.spec.taskId);
        if (this.state.launching.has(key) || this.state.liveTasks.get(p.fw.id, t.spec.taskId)) used.add(key);
      }
    // In arrival order: what an earlier answer of the batch took is gone for the later ones.
    const taken = new Map<string, OfferState>();
    const answered: typeof plans = [];
    for (const p of plans) {
      if (p.declined) p.offers = p.offers.filter((o) => !taken.has(o.id));
      const stale = p.offers.find((o) => taken.has(o.id));
      const staleState = stale && taken.get(stale.id);
      if (stale && staleState) {
        this.executors.forget(p.executors);
        p.entry.reject(
          new ProtocolError(PROTOCOL_ERRORS.OFFER_STALE, `offer ${stale.id} is no longer valid (${staleState.toLowerCase()})`, {
            offerId: stale.id,
            state: staleState,
          }),
        );
        continue;
      }
      const duplicate = p.tasks.find((t) => used.has(taskKey(p.fw.id, t.spec.taskId)));
      if (duplicate) {
        this.executors.forget(p.executors);
        p.entry.reject(
          new ProtocolError(PROTOCOL_ERRORS.DUPLICATE_TASK, `task id '${duplicate.spec.taskId}' is already used by this framework`, {
            taskId: duplicate.spec.taskId,
          }),
        );
        continue;
      }
      for (const o of p.offers) taken.set(o.id, p.declined ? OfferState.DECLINED : OfferState.ACCEPTED);
      for (const t of p.tasks) used.add(taskKey(p.fw.id, t.spec.taskId));
      answered.push(p);
    }
    if (!taken.size) {
      for (const p of answered) p.entry.resolve(p.declined ? undefined : { launched: [] });
      return;
    }

    // Written in a lane while the serial order goes on: the offers leave at once (no later answer
    // can take them), the task ids are held until the write is done, and the frameworks are
    // answered and the tasks launched only once it has committed. Launches and declines are
    // written apart, launches first: their write is on its way before the (many more) declined
    // offers are given back to the allocator, which takes a while when a cycle's answers arrive
    // together, and it never waits behind the declines' write.
    const { allocator, offers } = this.state;
    const accepted = answered.filter((p) => !p.declined);
    const declined = answered.filter((p) => p.declined);
    for (const p of accepted) {
      offers.take(p.offers.map((o) => o.id));
      for (const [role, left] of p.pool) if (!left.isEmpty()) allocator.recoverResources(p.fw.id, p.agentId, role, left, p.refuseSeconds);
    }
    for (const p of declined) offers.take(p.offers.map((o) => o.id));
    for (const p of accepted) this.executors.announce(p.executors);
    this.commitAnswers(accepted, this.launchWrites);
    this.commitAnswers(declined, this.declineWrites);
    if (accepted.length && declined.length) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const p of declined)
      for (const o of p.offers) allocator.recoverResources(p.fw.id, o.agentId, o.role, o.resources, p.refuseSeconds);
  }

  /**
   * Writes answers already checked and taken out of the outstanding offers (in a lane), then
   * answers them and launches their tasks. An answer the write refuses (a task id used before)
   * is refused as if its write had failed: its offers are rescinded and its tasks' resources go back.
   */
  private commitAnswers(answered: Array<PlannedAccept & { entry: AnswerEntry }>, writes: Batch<AnswerWrite, RefusedAnswer[]>): void {
    if (!answered.length) return;
    const now = this.clock.date();
    const written = answered.map((p) => {
      // A group's tasks are stored with its name (its first task's id): sent again, they go together.
      const groupOf = new Map(p.groups.flatMap((g) => g.taskIds.map((id) => [id, g.taskIds[0]] as const)));
      return {
        offers: new Map(p.offers.map((o) => [o.id, p.declined ? OfferState.DECLINED : OfferState.ACCEPTED] as const)),
        tasks: p.tasks.map(({ spec, role }): TaskEntity => ({
          id: randomUUID(),
          taskId: spec.taskId,
          frameworkId: p.fw.id,
          agentId: p.agentId,
          name: spec.name,
          role,
          resources: spec.resources,
          user: spec.user ?? null,
          ...storedSpec(spec, groupOf.get(spec.taskId)),
          state: TaskState.STAGING,
          createdAt: now,
          updatedAt: now,
        })),
      };
    });
    const { launching } = this.state;
    const held = written.flatMap((w) => w.tasks.map((t) => taskKey(t.frameworkId, t.taskId)));
    for (const k of held) launching.add(k);
    const executors = answered.flatMap((p) => p.executors);
    const write = written.some((w) => w.offers.size || w.tasks.length)
      ? writes.push({ answers: written, at: now, executors })
      : Promise.resolve([]);
    this.kernel.afterCommit(
      write,
      (refused) => {
        for (const k of held) launching.delete(k);
        const turnedDown = new Map(refused.map((r) => [r.answer, r.taskId]));
        for (const [i, p] of answered.entries()) {
          // One answer's failure (a bug) must not leave the others of the write unanswered.
          try {
            this.written(p, written[i].tasks, turnedDown.get(i));
          } catch (err) {
            p.entry.reject(err);
          }
        }
      },
      (err: unknown) => {
        // Nothing was written: the accepted offers are rescinded (declined ones stay declined),
        // which the database records as soon as it takes it; the tasks' resources go back and
        // every answer of the write fails.
        for (const k of held) launching.delete(k);
        const closed = new Map(
          written.flatMap((w) =>
            [...w.offers].map(([id, state]) => [id, state === OfferState.ACCEPTED ? OfferState.RESCINDED : state] as const),
          ),
        );
        void this.writes.write('background', `closing ${closed.size} offer(s) whose answers could not be written`, () =>
          this.offers.close(closed, this.clock.date()),
        );
        for (const p of answered) {
          this.unwritten(p, closed, 'the accept could not be recorded');
          p.entry.reject(err);
        }
      },
    );
  }

  /** An answer whose write has committed: launched, or refused for a task id used before (`duplicate`). */
  private written(p: PlannedAccept & { entry: AnswerEntry }, tasks: TaskEntity[], duplicate?: string): void {
    if (duplicate !== undefined) {
      const err = new ProtocolError(PROTOCOL_ERRORS.DUPLICATE_TASK, `task id '${duplicate}' is already used by this framework`, {
        taskId: duplicate,
      });
      // The framework's doing: its tasks' resources are filtered as the rest of its offers were.
      this.unwritten(p, new Map(p.offers.map((o) => [o.id, OfferState.RESCINDED])), err.message, p.refuseSeconds);
      p.entry.reject(err);
      return;
    }
    this.metrics.offers.inc({ outcome: p.declined ? 'declined' : 'accepted' }, p.offers.length);
    const state = p.declined ? OfferState.DECLINED : OfferState.ACCEPTED;
    for (const o of p.offers) this.stream.emit('offer.closed', { offerId: o.id, state });
    for (const t of tasks) {
      this.state.liveTasks.add(t);
      const { frameworkId, taskId, agentId, name, role, resources, state: taskState } = t;
      this.stream.emit('task.added', { frameworkId, taskId, agentId, name, role, resources, state: taskState });
    }
    const grouped = new Set(p.groups.flatMap((g) => g.taskIds));
    for (const t of tasks) if (!grouped.has(t.taskId)) this.updates.sendLaunch(p.agentId, t);
    for (const g of p.groups)
      this.outbox.launchGroup(p.agentId, {
        frameworkId: p.fw.id,
        executor: g.executor,
        tasks: p.tasks.filter((t) => g.taskIds.includes(t.spec.taskId)).map((t) => t.spec),
      });
    p.entry.resolve(p.declined ? undefined : { launched: tasks.map((t) => t.taskId) });
  }

  /**
   * An answer that launched nothing: its tasks' resources go back (filtered for `refuseSeconds`,
   * if given), and its accepted offers are rescinded (`closed` says how each ended).
   */
  private unwritten(p: PlannedAccept, closed: Map<string, OfferState>, reason: string, refuseSeconds?: number): void {
    if (!p.declined) this.metrics.offers.inc({ outcome: 'rescinded' }, p.offers.length);
    this.executors.end(p.executors, { reason: 'REASON_TASK_INVALID', exitStatus: { message: reason } });
    if (this.state.frameworks.has(p.fw.id) && this.state.agents.get(p.agentId)?.inAllocator) {
      for (const t of p.tasks)
        this.state.allocator.recoverResources(p.fw.id, p.agentId, t.role, Resources.of(t.spec.resources), refuseSeconds);
    }
    for (const o of p.offers) {
      if (!p.declined) this.outbox.rescind(p.fw.id, o.id, reason);
      this.stream.emit('offer.closed', { offerId: o.id, state: closed.get(o.id) ?? OfferState.RESCINDED });
    }
  }

  /** Answers written in a lane; those that wait for it go out in one statement. */
  private answerWrites(lane: WriteLane): Batch<AnswerWrite, RefusedAnswer[]> {
    return this.kernel.batch(
      lane,
      async (batch) => {
        // Answers are numbered across the batch; each write gets its own back, numbered as it gave them.
        let next = 0;
        const first = batch.map((b) => (next += b.item.answers.length) - b.item.answers.length);
        // The executors the answers start, ahead of the tasks that run under them (one statement).
        await this.executors.insertStarted(batch.flatMap((b) => b.item.executors));
        const refused = await this.offers.writeAnswers(
          batch.flatMap((b, k) =>
            b.item.answers.flatMap((a, i) => [...a.offers].map(([id, state]) => ({ id, state, at: b.item.at, answer: first[k] + i }))),
          ),
          batch.flatMap((b, k) => b.item.answers.flatMap((a, i) => a.tasks.map((t) => ({ ...t, answer: first[k] + i })))),
        );
        for (const [k, b] of batch.entries()) {
          const mine = refused.filter((r) => r.answer >= first[k] && r.answer < first[k] + b.item.answers.length);
          b.resolve(mine.map((r) => ({ ...r, answer: r.answer - first[k] })));
        }
      },
      { isolate: true },
    );
  }
}
