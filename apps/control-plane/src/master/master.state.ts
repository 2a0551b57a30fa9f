/**
 * The master's in-memory view of what is connected and outstanding, next to the allocator.
 * Postgres stays the source of truth; this is what must be at hand on every message.
 */
import type { Resources } from '@arbiter/allocator';
import type { Socket } from 'socket.io';

export interface AgentRuntime {
  id: string;
  hostname: string;
  attributes: Record<string, string | number>;
  socket?: Socket;
  /** performance.now() of the last sign of life (registration, heartbeat, message). */
  lastSeen: number;
  /** In the allocator (registered since the control plane started, or restored). */
  inAllocator: boolean;
  /**
   * Restored from the database at start and not registered since: it is silent only after the
   * re-registration timeout, not the heartbeat timeout (Mesos's agent_reregister_timeout).
   */
  recovered?: boolean;
}

export interface FrameworkRuntime {
  id: string;
  name: string;
  roles: string[];
  capabilities: string[];
  failoverTimeoutSeconds: number;
  socket?: Socket;
  /** Pending teardown after a disconnection. */
  failoverTimer?: NodeJS.Timeout;
}

export interface OutstandingOffer {
  id: string;
  frameworkId: string;
  agentId: string;
  role: string;
  resources: Resources;
  /** performance.now() when it was made (for the offer timeout). */
  createdAt: number;
  /** Sent to its framework (once its cycle was recorded). */
  sent: boolean;
}

export interface OutstandingInverseOffer {
  id: string;
  frameworkId: string;
  agentId: string;
}
