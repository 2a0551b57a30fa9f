/**
 * The /events socket.io namespace: a read-only stream for operators (the dashboard). Connect
 * with `auth: { token }` (an operator token). Each event carries a JSON payload.
 */
import type { ResourceEntry, TaskState } from './common';

export const EVENTS_NAMESPACE = '/events';

export interface CycleSummary {
  id: string;
  startedAt: string;
  durationMs: number;
  offerCount: number;
  /** Dominant share per role and per framework after the cycle. */
  shares: { roles: Record<string, number>; frameworks: Record<string, number> };
}

export interface OperatorEvents {
  'agent.added': (m: { agentId: string; hostname: string; resources: ResourceEntry[] }) => void;
  'agent.updated': (m: { agentId: string }) => void;
  'agent.removed': (m: { agentId: string; reason: string }) => void;
  'framework.added': (m: { frameworkId: string; name: string; roles: string[] }) => void;
  'framework.removed': (m: { frameworkId: string; reason: string }) => void;
  'offer.created': (m: { offerId: string; frameworkId: string; agentId: string; role: string; resources: ResourceEntry[] }) => void;
  'offer.closed': (m: { offerId: string; state: string }) => void;
  'task.updated': (m: { frameworkId: string; taskId: string; agentId: string; state: TaskState; reason?: string }) => void;
  cycle: (m: CycleSummary) => void;
}
