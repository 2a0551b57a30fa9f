/**
 * "Why is my framework (not) getting offers?": the recent recorded cycles' decisions about one
 * framework, in plain sentences with the numbers behind them.
 */
import { Resources } from '@arbiter/allocator';
import type { ReasonCode } from '@arbiter/allocator';
import { AGENT_WIDE_REASONS, type DecisionReasonCode, explainDecision } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { ArbiterException } from '../errors/errors.exception';
import type { ExplainDto } from '../frameworks/frameworks.dto';
import { HistoryRepository } from './history.repository';
import { LiveView } from '../master/live-view';
import { FrameworkState } from '../frameworks/framework.entity';
import { FrameworksErrorCode } from '../frameworks/frameworks.errors';
import { FrameworksRepository } from '../frameworks/frameworks.repository';

/** The contracts' reason codes are the allocator's: this fails to compile when the two lists differ. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const REASON_CODES_MATCH: Same<ReasonCode, DecisionReasonCode> = true;

type Trace = { entries?: Array<Record<string, unknown>> } | null;

@Injectable()
export class FrameworkExplainService {
  constructor(
    private readonly frameworks: FrameworksRepository,
    private readonly history: HistoryRepository,
    private readonly live: LiveView,
  ) {}

  /** Why a framework got, or did not get, offers in the recent recorded cycles. */
  async explain(frameworkId: string, cycles: number): Promise<ExplainDto> {
    const fw = await this.frameworks.find(frameworkId);
    if (!fw) throw new ArbiterException(FrameworksErrorCode.FRAMEWORK_NOT_FOUND, `no framework with id '${frameworkId}'`, { frameworkId });
    const recent = await this.history.recentCycles(cycles);
    const offers = await this.history.offersOf(
      recent.map((c) => c.id),
      frameworkId,
    );
    const reasons: Record<string, number> = {};
    const examples: Array<Record<string, unknown>> = [];
    const agentWide: Record<string, number> = {};
    for (const c of recent) {
      for (const e of (c.trace as Trace)?.entries ?? []) {
        const reason = String(e.reason);
        if (e.framework === frameworkId) {
          reasons[reason] = (reasons[reason] ?? 0) + 1;
          if (examples.length < 50) examples.push({ cycleId: c.id, ...e });
        } else if (!('framework' in e) && !('role' in e)) agentWide[reason] = (agentWide[reason] ?? 0) + 1;
      }
    }
    const summary: string[] = [];
    const connected = (await this.live.snapshot()).connectedFrameworks.has(frameworkId);
    if (fw.state === FrameworkState.COMPLETED)
      summary.push(`The framework completed at ${fw.completedAt?.toISOString() ?? 'an unknown time'}; completed frameworks get no offers.`);
    else if (!connected)
      summary.push(
        `The framework is not connected${fw.disconnectedAt ? ` (since ${fw.disconnectedAt.toISOString()})` : ''}; it gets no offers until it subscribes again.`,
      );
    if (fw.suppressedRoles.length)
      summary.push(
        `It suppressed offers for ${fw.suppressedRoles.map((r) => `'${r}'`).join(', ')}; it gets none for those roles until it revives them.`,
      );
    const latestOffer = offers.at(0);
    summary.push(
      latestOffer
        ? `It received ${offers.length} offer${offers.length === 1 ? '' : 's'} in the last ${recent.length} recorded cycles, the latest at ${latestOffer.createdAt.toISOString()} (${Resources.of(latestOffer.resources).toString()} on agent ${latestOffer.agentId}).`
        : `It received no offers in the last ${recent.length} recorded cycles.`,
    );
    const latest = (reason: string) => examples.find((e) => e.reason === reason) ?? {};
    for (const [reason, n] of Object.entries(reasons).sort(([, a], [, b]) => b - a))
      summary.push(explainDecision(reason, n, latest(reason)));
    const skipped = Object.entries(agentWide).filter(([r]) => AGENT_WIDE_REASONS.includes(r as DecisionReasonCode));
    if (skipped.length)
      summary.push(
        `For every framework, agents were skipped: ${skipped.map(([r, n]) => `${n} × ${r.toLowerCase().replace(/_/g, ' ')}`).join(', ')}.`,
      );
    if (!offers.length && !Object.keys(reasons).length && connected && !fw.suppressedRoles.length) {
      const mine = (await this.history.latestFrameworkShares()).find((s) => s.client === frameworkId);
      summary.push(
        `No decision in those cycles concerned it: the resources went to frameworks ahead of it in DRF order, or nothing was free.` +
          (mine
            ? ` Its dominant share in the latest cycle was ${Math.round(mine.dominant_share * 1000) / 1000}; lower shares are served first.`
            : ''),
      );
    }
    return { frameworkId, summary, cyclesExamined: recent.length, offersReceived: offers.length, reasons, examples };
  }
}
