/**
 * Writes that must reach the database even if it refuses them for a while: the record of
 * something the master has already done in memory (offers it closed, a framework it took for
 * disconnected). Each is tried in its write lane; a failure is logged with what the write was
 * for and tried again on the clock, backing off from 1 s to 30 s, until it commits or the
 * leadership term it belongs to ends (the next term rebuilds from the database and closes what
 * the last one left open). Only for writes that may run twice.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from './clock';
import { Kernel, type WriteLane } from './kernel';

export const EVENTUAL_RETRY_MIN_MS = 1000;
export const EVENTUAL_RETRY_MAX_MS = 30_000;

@Injectable()
export class EventualWrites {
  private readonly logger = new Logger('EventualWrites');
  private failing = 0;

  constructor(
    private readonly kernel: Kernel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Runs `work` in `lane` and resolves once its first try has settled: committed, or failed and
   * booked to be tried again (never rejects).
   */
  write(lane: WriteLane, what: string, work: () => Promise<unknown>): Promise<void> {
    const term = this.kernel.term;
    const attempt = async (delay: number, retry: boolean): Promise<void> => {
      try {
        await this.kernel.write(lane, work);
        if (retry) {
          this.failing--;
          this.logger.log({ what }, 'write committed after retrying');
        }
      } catch (err) {
        if (!retry) this.failing++;
        if (this.kernel.ended(term)) {
          this.failing--;
          this.logger.warn({ err, what }, 'write not retried: the leadership term it belongs to has ended');
          return;
        }
        this.logger.error({ err, what, retryInMs: delay }, 'write failed; trying again');
        this.clock.after(delay, () => void attempt(Math.min(delay * 2, EVENTUAL_RETRY_MAX_MS), true));
      }
    };
    return attempt(EVENTUAL_RETRY_MIN_MS, false);
  }

  /** Writes that failed and wait to be tried again. */
  get pending(): number {
    return this.failing;
  }
}
