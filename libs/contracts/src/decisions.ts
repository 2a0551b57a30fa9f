/**
 * The allocator's decision reasons (why a cycle did not offer something), as the control plane
 * records them in each cycle's trace, and the sentence that explains each to a person. The
 * mapping is exhaustive: a reason without a sentence does not compile. The control plane checks
 * at compile time that this list is the allocator's.
 */
export const DECISION_REASONS = [
  'AGENT_NOT_WHITELISTED',
  'AGENT_DEACTIVATED',
  'AGENT_IN_MAINTENANCE',
  'NOTHING_AVAILABLE',
  'ROLE_QUOTA_MET',
  'ROLE_AT_QUOTA_LIMIT',
  'HEADROOM_RESERVED',
  'FRAMEWORK_SUPPRESSED',
  'FRAMEWORK_INACTIVE',
  'FRAMEWORK_FILTERED',
  'MISSING_CAPABILITY',
  'BELOW_MIN_ALLOCATABLE',
  'NO_QUOTA_GUARANTEE_ON_AGENT',
] as const;

export type DecisionReasonCode = (typeof DECISION_REASONS)[number];

/** Reasons that concern an agent as a whole (every framework is passed over for it). */
export const AGENT_WIDE_REASONS: readonly DecisionReasonCode[] = ['AGENT_NOT_WHITELISTED', 'AGENT_DEACTIVATED', 'AGENT_IN_MAINTENANCE'];

/** A trace entry's numbers, as recorded (resource quantities are objects of name to amount). */
type DecisionDetails = Record<string, unknown>;

/** Resource quantities as words: `cpus 2, mem 1024`. */
export function formatQuantities(q: unknown): string {
  if (!q || typeof q !== 'object') return String(q);
  return (
    Object.entries(q as Record<string, number>)
      .map(([k, v]) => `${k} ${Math.round(v * 1000) / 1000}`)
      .join(', ') || 'nothing'
  );
}

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '?');

/** How many times (`n`) a reason applied, in words, with the numbers of one example (`e`). */
export const DECISION_SENTENCES: Readonly<Record<DecisionReasonCode, (n: number, e: DecisionDetails) => string>> = {
  AGENT_NOT_WHITELISTED: (n) => `${n} time(s) an agent was skipped because it is not on the whitelist.`,
  AGENT_DEACTIVATED: (n) => `${n} time(s) an agent was skipped because it is deactivated, draining or disconnected.`,
  AGENT_IN_MAINTENANCE: (n) => `${n} time(s) an agent was skipped because it is down for maintenance.`,
  NOTHING_AVAILABLE: (n) => `${n} time(s) an agent had nothing left to offer.`,
  ROLE_QUOTA_MET: (n, e) => `${n} time(s) role '${str(e.role)}' already had its quota guarantee, so the guarantee stage passed it over.`,
  ROLE_AT_QUOTA_LIMIT: (n, e) =>
    `${n} offer(s) were cut because role '${str(e.role)}' is at its quota limit (limit ${formatQuantities(e.limit)}; consumed ${formatQuantities(e.consumed)}).`,
  HEADROOM_RESERVED: (n, e) =>
    `${n} offer(s) were cut to keep resources free for other roles' unmet quota guarantees (needed ${formatQuantities(e.required)}; unallocated ${formatQuantities(e.available)}).`,
  FRAMEWORK_SUPPRESSED: (n) => `${n} time(s) passed over because offers were suppressed for the role.`,
  FRAMEWORK_INACTIVE: (n) => `${n} time(s) passed over because the framework was disconnected.`,
  FRAMEWORK_FILTERED: (n, e) =>
    `${n} time(s) an agent was skipped because the framework declined its resources with a filter (refuse_seconds); e.g. agent ${str(e.agent)} was filtered until t=${Math.round(Number(e.until) * 10) / 10} s on the allocator's clock. Revive to clear filters.`,
  MISSING_CAPABILITY: (n, e) =>
    e.capability === 'RESERVATION_REFINEMENT'
      ? `${n} time(s) an agent was skipped because all it had for the role was refined reservations and the framework lacks the RESERVATION_REFINEMENT capability.`
      : `${n} time(s) an agent was skipped because it has ${e.capability === 'GPU_RESOURCES' ? 'GPUs' : 'resources'} and the framework lacks the ${str(e.capability)} capability.`,
  BELOW_MIN_ALLOCATABLE: (n, e) =>
    `${n} time(s) what was left on an agent (${formatQuantities(e.leftover)}) was below the minimum allocatable resources.`,
  NO_QUOTA_GUARANTEE_ON_AGENT: (n, e) =>
    `${n} time(s) an agent had none of what role '${str(e.role)}' still needs for its guarantee (${formatQuantities(e.unmet)}).`,
};

function isDecisionReason(code: string): code is DecisionReasonCode {
  return (DECISION_REASONS as readonly string[]).includes(code);
}

/** The sentence for a recorded reason; a code this version does not know (an older trace) is named as it is. */
export function explainDecision(code: string, n: number, example: DecisionDetails = {}): string {
  return isDecisionReason(code) ? DECISION_SENTENCES[code](n, example) : `${n} time(s): ${code}.`;
}
