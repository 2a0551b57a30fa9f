/**
 * The agents the master knows: registered since it started leading, or restored from the
 * database and not registered again yet. The registry is their one owner: the agents' handlers
 * change it (each through a method named for what happened), always in the kernel's order;
 * everything else reads it through `AgentRegistryView`, whose agents are read-only.
 */
import { Injectable } from '@nestjs/common';
import type { AgentCalls, AgentEvents } from '@arbiter/contracts';
import type { Socket } from 'socket.io';
import { Registry, type RegistryView } from './registry';

/** How often an agent says it is alive, at most (a short agent timeout asks for more often). */
export const AGENT_HEARTBEAT_SECONDS = 5;

/**
 * The heartbeat interval agents are given at registration: three heartbeats fit in the agent
 * timeout, so an agent is unreachable only after missing two in a row (a timeout shorter than the
 * interval would drop every agent between its heartbeats), and never more often than needed.
 */
export function agentHeartbeatSeconds(agentTimeoutSeconds: number): number {
  return Math.min(AGENT_HEARTBEAT_SECONDS, agentTimeoutSeconds / 3);
}

/** An agent's connection to /agents: what it may call, what it is sent (libs/contracts). */
export type AgentSocket = Socket<AgentCalls, AgentEvents>;

export interface AgentRuntime {
  readonly id: string;
  readonly hostname: string;
  readonly attributes: Record<string, string | number>;
  readonly socket?: AgentSocket;
  /** Clock time (ms) of the last sign of life (registration, heartbeat, message). */
  readonly lastSeen: number;
  /** In the allocator (registered since the control plane started, or restored). */
  readonly inAllocator: boolean;
  /**
   * Restored from the database at start and not registered since: it is silent only after the
   * re-registration timeout, not the heartbeat timeout (Mesos's agent_reregister_timeout).
   */
  readonly recovered?: boolean;
  /** The IP the agent connects from (machines in the maintenance schedule may be named by IP). */
  readonly ip?: string;
  /** Draining (its tasks killed): DRAINED, or GONE with markGone, once the last one has ended. */
  readonly draining?: { readonly markGone: boolean };
  /** The health it last reported (JSON), to record only changes. */
  readonly health?: string;
  /** Why it cannot run container images (tasks with one are refused at the accept); absent: it can. */
  readonly imagesRefusal?: string;
}

/** Why an agent with these capabilities (null: it reported none) cannot run container images, as its AgentRuntime's field. */
export function imagesRefusal(capabilities: { runtime?: unknown; imagesProblem?: string } | null): Pick<AgentRuntime, 'imagesRefusal'> {
  if (capabilities === null) return { imagesRefusal: 'it reports no container capabilities (an agent version without container support)' };
  if (capabilities.imagesProblem) return { imagesRefusal: capabilities.imagesProblem };
  if (capabilities.runtime === undefined) return { imagesRefusal: 'it has no OCI runtime' };
  return {};
}

/** What may read the agents without changing them. */
export type AgentRegistryView = RegistryView<AgentRuntime>;

@Injectable()
export class AgentRegistry extends Registry<AgentRuntime> {
  constructor() {
    super('an agent');
  }

  /**
   * A sign of life at `at` (clock ms): a heartbeat, a message. Recorded wherever it arrives, in a
   * turn or not: it only moves a time forward, which commutes with every change in the serial order.
   */
  seen(id: string, at: number): void {
    this.changeUnordered(id, (agent) => (agent.lastSeen = at));
  }

  /**
   * The health the agent last reported (JSON; undefined: record the next report whatever it
   * says). Like `seen`, recorded wherever it arrives: it only remembers what was last said, to
   * skip repeating it.
   */
  healthReported(id: string, health: string | undefined): void {
    this.changeUnordered(id, (agent) => (agent.health = health));
  }

  /** The agent's connection closed: it stays known (and its tasks) until it is silent too long. */
  disconnected(id: string): void {
    this.change(id, 'recording an agent disconnected', (agent) => (agent.socket = undefined));
  }

  /** The agent's attributes changed while it runs (UPDATE_SLAVE). */
  attributesChanged(id: string, attributes: Record<string, string | number>): void {
    this.change(id, "changing an agent's attributes", (agent) => (agent.attributes = attributes));
  }

  /** The agent is in the allocator now. */
  addedToAllocator(id: string): void {
    this.change(id, 'recording an agent in the allocator', (agent) => (agent.inAllocator = true));
  }

  /** The agent drains (its tasks killed), to become DRAINED, or GONE with `markGone`. */
  drainStarted(id: string, markGone: boolean): void {
    this.change(id, 'starting a drain', (agent) => (agent.draining = { markGone }));
  }

  /** The agent no longer drains (drained, or reactivated). */
  drainEnded(id: string): void {
    this.change(id, 'ending a drain', (agent) => (agent.draining = undefined));
  }
}
