/**
 * Retention: allocation history, ended tasks and agents that left, older than their retention, are dropped, in
 * small batches outside the serial order, each its own statement, so pruning never holds up
 * allocation.
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { CLOCK, type Clock } from '../kernel/clock';
import { Kernel } from '../kernel/kernel';
import { PRUNE_BATCH, type Pruned, RetentionRepository } from './retention.repository';

const DAY_MS = 86_400_000;

@Injectable()
export class Retention {
  constructor(
    private readonly kernel: Kernel,
    private readonly repo: RetentionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Drops what is older than its retention (or than the dates given): at most `budgetMs` of work
   * per call. Resolves with the number of cycles, offers, tasks and agents removed.
   */
  async prune(before: { history?: Date; tasks?: Date; agents?: Date } = {}, budgetMs = 20_000): Promise<Pruned> {
    const now = this.clock.date().getTime();
    const history = before.history ?? new Date(now - this.config.historyRetentionDays * DAY_MS);
    const tasks = before.tasks ?? new Date(now - this.config.taskRetentionDays * DAY_MS);
    const agents = before.agents ?? new Date(now - this.config.agentRetentionDays * DAY_MS);
    const removed = { cycles: 0, offers: 0, tasks: 0, agents: 0 };
    const t0 = this.clock.now();
    while (!this.kernel.stopping && this.clock.now() - t0 < budgetMs) {
      const row = await this.repo.pruneBatch(history, tasks, agents);
      removed.cycles += row.cycles;
      removed.offers += row.offers;
      removed.tasks += row.tasks;
      removed.agents += row.agents;
      // Another batch while one was full, or while tasks went that may have been the last of an agent's.
      if (row.cycles < PRUNE_BATCH.cycles && row.offers < PRUNE_BATCH.offers && row.tasks === 0 && row.agents < PRUNE_BATCH.agents) break;
    }
    return removed;
  }
}
