/**
 * Decision traces: why a cycle did not offer something. Every "no" is a typed reason with the
 * numbers behind it. Collection is bounded: past `limit` entries only per-reason counts grow.
 */

export type Quantities = Record<string, number>;

export type DecisionReason =
  | { reason: 'AGENT_NOT_WHITELISTED'; agent: string }
  | { reason: 'AGENT_DEACTIVATED'; agent: string }
  | { reason: 'AGENT_IN_MAINTENANCE'; agent: string }
  | { reason: 'NOTHING_AVAILABLE'; agent: string }
  | { reason: 'ROLE_QUOTA_MET'; agent: string; role: string; stage: 1 }
  | { reason: 'ROLE_AT_QUOTA_LIMIT'; agent: string; role: string; framework: string; limit: Quantities; consumed: Quantities }
  | { reason: 'HEADROOM_RESERVED'; agent: string; role: string; framework: string; required: Quantities; available: Quantities }
  | { reason: 'FRAMEWORK_SUPPRESSED'; agent: string; role: string; framework: string }
  | { reason: 'FRAMEWORK_INACTIVE'; agent: string; role: string; framework: string }
  | { reason: 'FRAMEWORK_FILTERED'; agent: string; role: string; framework: string; until: number }
  | { reason: 'MISSING_CAPABILITY'; agent: string; role: string; framework: string; capability: string }
  | { reason: 'BELOW_MIN_ALLOCATABLE'; agent: string; role: string; framework: string; leftover: Quantities }
  | { reason: 'NO_QUOTA_GUARANTEE_ON_AGENT'; agent: string; role: string; framework: string; unmet: Quantities };

export type ReasonCode = DecisionReason['reason'];

export interface DecisionTrace {
  /** Entries in the order they were decided, at most `limit` of them. */
  entries: DecisionReason[];
  /** Every decision counted by reason, including those past the limit. */
  counts: Partial<Record<ReasonCode, number>>;
  /** True when entries were dropped because the limit was reached. */
  truncated: boolean;
}

export class TraceCollector {
  readonly entries: DecisionReason[] = [];
  readonly counts: Partial<Record<ReasonCode, number>> = {};
  truncated = false;

  constructor(private readonly limit: number) {}

  add(entry: DecisionReason): void {
    this.counts[entry.reason] = (this.counts[entry.reason] ?? 0) + 1;
    if (this.entries.length < this.limit) this.entries.push(entry);
    else this.truncated = true;
  }

  /** Whether entries are no longer kept (only counts grow). */
  isFull(): boolean {
    return this.entries.length >= this.limit;
  }

  /** Counts `n` decisions of one reason at once; only once the trace is full (no entries lost). */
  addCount(reason: ReasonCode, n: number): void {
    if (n <= 0) return;
    if (!this.isFull()) throw new Error('addCount needs a full trace: entries would be lost');
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    this.truncated = true;
  }

  result(): DecisionTrace {
    return { entries: this.entries, counts: this.counts, truncated: this.truncated };
  }
}
