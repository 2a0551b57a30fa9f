/**
 * The master's in-memory view of what is connected and outstanding, next to the allocator.
 * Postgres stays the source of truth; this is what must be at hand on every message.
 */
import type { Resources } from '@arbiter/allocator';
import type { Socket } from 'socket.io';
import type { TaskEntity } from '../tasks/task.entity';

/** One key per task: a framework's task ids are its own. */
export const taskKey = (frameworkId: string, taskId: string) => `${frameworkId}\u0000${taskId}`;

/**
 * The tasks that are not terminal, by framework and task id and by agent (a task never moves),
 * so that a status update needs no read and an agent's usage no scan of every task.
 */
export class LiveTasks {
  private readonly byKey = new Map<string, TaskEntity>();
  private readonly byAgent = new Map<string, Map<string, TaskEntity>>();

  get(frameworkId: string, taskId: string): TaskEntity | undefined {
    return this.byKey.get(taskKey(frameworkId, taskId));
  }

  /** Adds a task as stored, without its command (the agent has it). */
  add(task: TaskEntity): void {
    const k = taskKey(task.frameworkId, task.taskId);
    this.delete(task.frameworkId, task.taskId);
    const row = { ...task, command: null };
    this.byKey.set(k, row);
    let onAgent = this.byAgent.get(task.agentId);
    if (!onAgent) this.byAgent.set(task.agentId, (onAgent = new Map()));
    onAgent.set(k, row);
  }

  delete(frameworkId: string, taskId: string): void {
    const k = taskKey(frameworkId, taskId);
    const task = this.byKey.get(k);
    if (!task) return;
    this.byKey.delete(k);
    const onAgent = this.byAgent.get(task.agentId)!;
    onAgent.delete(k);
    if (!onAgent.size) this.byAgent.delete(task.agentId);
  }

  onAgent(agentId: string): Iterable<TaskEntity> {
    return this.byAgent.get(agentId)?.values() ?? [];
  }

  clear(): void {
    this.byKey.clear();
    this.byAgent.clear();
  }
}

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
