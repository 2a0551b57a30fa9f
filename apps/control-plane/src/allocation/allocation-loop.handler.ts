/**
 * The allocation loop: a cycle of the allocator on the timer and soon after events that bring
 * new offerable resources or clients; its offers recorded with the cycle, then sent.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Offer as AllocatorOffer, CycleResult } from '@arbiter/allocator';
import type { Offer, ResourceEntry } from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState } from '../master/cluster-state';
import type { OutstandingOffer } from '../master/offer-book';
import { Kernel } from '../kernel/kernel';
import { Outbox } from '../master/outbox';
import { ShareClientKind } from './allocation-share.entity';
import { AllocationRepository } from './allocation.repository';
import { InverseOffers } from './inverse-offers.handler';
import { Metrics } from '../health/metrics';

/** A cycle with no offers is still recorded this often, so history and "explain" stay current. */
const IDLE_CYCLE_RECORD_MS = 30_000;
/** How soon a requested cycle runs: requests within this window share one cycle. */
const CYCLE_BATCH_MS = 20;

/** The loop's state in one leadership term: a new term starts with none of it (see Kernel.perTerm). */
class CycleTerm {
  /** A cycle is booked (on the clock or in the serial order) and has not started. */
  scheduled = false;
  lastRecordedCycle = -Infinity;
  lastTraceKey = '';
  /** A cycle's write handed to its lane and not yet settled. */
  cycleWriting?: Promise<unknown>;
  /** How long the last cycle held the event loop (ms): a requested cycle waits at least as long after it. */
  lastCycleMs = 0;
}

@Injectable()
export class AllocationLoop {
  private readonly logger = new Logger('AllocationLoop');
  private readonly term: () => CycleTerm;

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly cycles: AllocationRepository,
    private readonly inverseOffers: InverseOffers,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly outbox: Outbox,
  ) {
    this.term = kernel.perTerm(() => new CycleTerm());
  }

  /**
   * Runs a cycle soon (batched: at most one queued). Besides the timer, only events that bring
   * new offerable resources or clients ask for one (an agent registering, a framework
   * subscribing or reviving, an operator's change that may free resources); resources that come back from answers and
   * finished tasks wait for the next timed cycle, as in Mesos: a cycle offers each agent at most
   * once, so a cycle per answer would re-offer the cluster as fast as the database records it.
   * While the last cycle's offers are still being written (so not yet sent), the next one waits
   * for them.
   */
  requestCycle(delayMs = CYCLE_BATCH_MS): void {
    const term = this.term();
    if (term.scheduled || this.kernel.stopping) return;
    term.scheduled = true;
    // Requested cycles (not the timer's) leave the loop at least as long as the last one took:
    // a stream of operator changes on a large cluster cannot keep the allocator running back to
    // back, and the calls behind those cycles are served in between.
    this.clock.after(delayMs > 0 ? Math.max(delayMs, term.lastCycleMs) : 0, () => this.startCycle(term));
  }

  /** Starts the cycle `term` booked, unless that term is over (the next one books its own). */
  private startCycle(term: CycleTerm): void {
    if (this.kernel.stopping || this.term() !== term) return;
    if (term.cycleWriting) {
      void term.cycleWriting.then(() => this.startCycle(term));
      return;
    }
    this.kernel
      .serial(async () => {
        term.scheduled = false;
        await this.runCycle(term);
      })
      .catch((err: unknown) => this.logger.error({ err }, 'allocation cycle failed'));
  }

  /**
   * The allocator's cycle in slices: each holds the event loop for about `allocationSliceMs`
   * (the allocator pauses between two agents), then requests, socket messages and writes get
   * their turn. The cycle keeps its turn in the serial order meanwhile, so no change reaches the
   * allocator until it is over (the allocator refuses any). Its duration is the time it held
   * the loop, pauses left out.
   */
  private async allocateInSlices(): Promise<{ result: CycleResult; durationMs: number } | undefined> {
    const budget = this.config.allocationSliceMs;
    const term = this.kernel.term;
    let sliceStart = performance.now();
    let durationMs = 0;
    const run = this.state.allocator.cycle({ trace: true }, budget > 0 ? () => performance.now() - sliceStart >= budget : undefined);
    for (;;) {
      const step = run.next();
      const held = performance.now() - sliceStart;
      durationMs += held;
      this.metrics.cycleSlices.observe(held / 1000);
      if (step.done) return { result: step.value, durationMs };
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Stepped down or stopping meanwhile: the cycle's allocator and maps are no longer the
      // master's (a new term rebuilds them), so nothing it decided may be recorded or sent.
      if (this.kernel.ended(term)) {
        run.return(undefined as never);
        return undefined;
      }
      sliceStart = performance.now();
    }
  }

  private async runCycle(term: CycleTerm): Promise<void> {
    if (this.kernel.stopping) return;
    const { allocator, frameworks, agents, offers } = this.state;
    const startedAt = this.clock.date();
    const cycle = await this.allocateInSlices();
    if (!cycle) return;
    const { result, durationMs } = cycle;
    term.lastCycleMs = durationMs;
    this.state.cycles++;
    this.metrics.cycles.inc();
    this.metrics.cycleDuration.observe(durationMs / 1000);
    // Offers only to frameworks that are still connected; the rest go straight back.
    const deliverable: AllocatorOffer[] = [];
    for (const o of result.offers) {
      if (frameworks.get(o.frameworkId)?.socket && agents.get(o.agentId)?.socket) deliverable.push(o);
      else allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
    }
    if (deliverable.length) this.metrics.offers.inc({ outcome: 'made' }, deliverable.length);
    // A cycle that offered nothing is recorded when its decisions differ from the last recorded
    // one (or every IDLE_CYCLE_RECORD_MS): history stays complete without a row per second.
    const idle = deliverable.length === 0 && result.inverseOffers.length === 0;
    const traceKey = JSON.stringify(result.trace?.counts ?? {});
    if (idle && traceKey === term.lastTraceKey && this.clock.now() - term.lastRecordedCycle < IDLE_CYCLE_RECORD_MS) return;
    term.lastRecordedCycle = this.clock.now();
    term.lastTraceKey = traceKey;

    const shares = allocator.shares();
    const rows = deliverable.map((o) => ({ id: randomUUID(), resources: o.resources.toJSON() }));
    // The cycle, its offers and the shares after it: one statement, written in the background
    // lane while the serial order goes on; the offers are outstanding at once (no other cycle
    // offers their resources) but sent only once committed.
    const written = this.kernel.write('background', () =>
      this.cycles.recordCycle({
        durationMs,
        trace: result.trace ?? {},
        offerTimeoutSeconds: this.config.offerTimeout,
        offers: deliverable.map((o, i) => ({
          id: rows[i].id,
          frameworkId: o.frameworkId,
          agentId: o.agentId,
          role: o.role,
          resources: rows[i].resources,
        })),
        shares: [
          ...Object.entries(shares.roles).map(([role, share]) => ({
            kind: ShareClientKind.ROLE,
            client: role,
            role: null,
            dominantShare: share,
            shares: {},
          })),
          ...Object.entries(shares.frameworks).map(([fw, byRole]) => ({
            kind: ShareClientKind.FRAMEWORK,
            client: fw,
            role: Object.keys(byRole).join(','),
            dominantShare: Math.max(0, ...Object.values(byRole)),
            shares: byRole,
          })),
        ],
      }),
    );
    const now = this.clock.now();
    const made = deliverable.map((o, i): Omit<OutstandingOffer, 'sent'> => ({
      id: rows[i].id,
      frameworkId: o.frameworkId,
      agentId: o.agentId,
      role: o.role,
      resources: o.resources,
      createdAt: now,
    }));
    offers.add(made);
    const writing = (term.cycleWriting = written.then(
      () => undefined,
      () => undefined,
    ));
    void writing.then(() => {
      if (term.cycleWriting === writing) term.cycleWriting = undefined;
    });
    await this.inverseOffers.send(result.inverseOffers);
    this.kernel.afterCommit(
      written,
      (cycleId) => {
        const byFramework = new Map<string, Offer[]>();
        for (const [i, o] of made.entries()) {
          // Gone already (its agent or framework left, say): never sent.
          if (!offers.markSent(o.id)) continue;
          const agent = agents.get(o.agentId);
          const resources = rows[i].resources as ResourceEntry[];
          const list = byFramework.get(o.frameworkId) ?? [];
          list.push({
            id: o.id,
            frameworkId: o.frameworkId,
            agentId: o.agentId,
            hostname: agent?.hostname ?? '',
            role: o.role,
            resources,
            attributes: agent?.attributes ?? {},
          });
          byFramework.set(o.frameworkId, list);
          this.stream.emit('offer.created', { offerId: o.id, frameworkId: o.frameworkId, agentId: o.agentId, role: o.role, resources });
        }
        for (const [fwId, list] of byFramework) this.outbox.offers(fwId, list);
        const frameworkShares = Object.fromEntries(
          Object.entries(shares.frameworks).map(([fw, byRole]) => [fw, Math.max(0, ...Object.values(byRole))]),
        );
        this.stream.emit('cycle', {
          id: cycleId,
          startedAt: startedAt.toISOString(),
          durationMs,
          offerCount: deliverable.length,
          shares: { roles: shares.roles, frameworks: frameworkShares },
        });
      },
      (err: unknown) => {
        // Not recorded, so never made: the resources go back.
        this.logger.error({ err }, 'allocation cycle not recorded; its offers are withdrawn');
        for (const o of offers.take(made.map((m) => m.id))) allocator.recoverResources(o.frameworkId, o.agentId, o.role, o.resources);
      },
    );
  }
}
