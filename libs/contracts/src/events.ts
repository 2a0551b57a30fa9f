/**
 * The /events socket.io namespace: a read-only stream for operators (the dashboard). Connect
 * with `auth: { token }` (an operator token). Each event carries a JSON payload.
 */
import type { ResourceEntry, TaskState } from './common';

export const EVENTS_NAMESPACE = '/events';

interface CycleSummary {
  id: string;
  startedAt: string;
  durationMs: number;
  offerCount: number;
  /** Dominant share per role and per framework after the cycle. */
  shares: { roles: Record<string, number>; frameworks: Record<string, number> };
}

export interface OperatorEvents {
  /** A new agent (Mesos's AGENT_ADDED carries what it says of it). */
  'agent.added': (m: {
    agentId: string;
    hostname: string;
    resources: ResourceEntry[];
    address: string | null;
    attributes: Record<string, string | number>;
    version: string | null;
    activated: boolean;
    registeredAt: string;
  }) => void;
  'agent.updated': (m: { agentId: string }) => void;
  'agent.removed': (m: { agentId: string; reason: string; hostname?: string }) => void;
  /** A framework subscribed (Mesos's FRAMEWORK_ADDED carries its FrameworkInfo, from what it says). */
  'framework.added': (m: {
    frameworkId: string;
    name: string;
    roles: string[];
    user: string | null;
    principal: string | null;
    hostname: string | null;
    webuiUrl: string | null;
    capabilities: string[];
    failoverTimeoutSeconds: number;
    checkpoint: boolean;
    registeredAt: string;
  }) => void;
  'framework.removed': (m: { frameworkId: string; reason: string }) => void;
  'offer.created': (m: { offerId: string; frameworkId: string; agentId: string; role: string; resources: ResourceEntry[] }) => void;
  'offer.closed': (m: { offerId: string; state: string }) => void;
  /** A task launched (written, on its way to its agent): its first state is STAGING. */
  'task.added': (m: {
    frameworkId: string;
    taskId: string;
    agentId: string;
    name: string;
    role: string;
    resources: ResourceEntry[];
    state: TaskState;
  }) => void;
  'task.updated': (m: { frameworkId: string; taskId: string; agentId: string; state: TaskState; reason?: string }) => void;
  cycle: (m: CycleSummary) => void;
}

/** Codes of the cluster summary's alerts (GET /api/v1/cluster): stable, for scripts and the dashboard. */
export const ALERT_CODES = [
  'NO_AGENTS',
  'AGENT_UNREACHABLE',
  'AGENT_DISCONNECTED',
  'AGENT_DEACTIVATED',
  'AGENT_DRAINING',
  'MACHINE_DOWN',
  'FRAMEWORK_DISCONNECTED',
  'OFFERS_HELD',
  'WHITELIST_EMPTY',
  'WHITELIST_EXCLUDES',
  'QUOTA_OVER_CAPACITY',
  'QUOTA_GUARANTEE_UNMET',
] as const;
export type AlertCode = (typeof ALERT_CODES)[number];

/** Actions of the operator audit log (GET /api/v1/audit), one per kind of change. */
export const AUDIT_ACTIONS = [
  'agent.deactivate',
  'agent.reactivate',
  'agent.drain',
  'whitelist.update',
  'weights.update',
  'quota.update',
  'quota.remove',
  'reservation.create',
  'reservation.update',
  'reservation.remove',
  'volume.create',
  'volume.destroy',
  'maintenance.schedule.update',
  'maintenance.start',
  'maintenance.stop',
  'framework.teardown',
  'task.kill',
  'framework.register',
  'agent.register',
  /** An agent reported new resources (or attributes) while running. */
  'agent.update',
  'agent.remove',
  'principal.create',
  'principal.disable',
  'token.issue',
  'token.revoke',
  'acls.update',
  /** A call refused: a kind without the permission, an ACL, or a takeover attempt (rate-limited). */
  'access.denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
