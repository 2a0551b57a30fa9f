/**
 * The operator API's whole-cluster reads in plain SQL rows: every agent and every task (live and
 * kept ended ones) of a cluster at once, without building the REST API's entities and views one
 * by one, which takes seconds at 10,000 agents and 30,000 tasks (docs/benchmarks.md). The
 * caller's view ACLs are applied to the rows by OperatorReads, as the REST services apply them.
 */
import { Injectable } from '@nestjs/common';
import type { ResourceEntry } from '@arbiter/contracts';
import { Database } from '../database/database.service';
import type { TaskState } from '../tasks/task.entity';

export interface AgentRow {
  id: string;
  hostname: string;
  address: string | null;
  attributes: Record<string, string | number>;
  resources: ResourceEntry[];
  status: string;
  activated: boolean;
  drainState: string | null;
  drainConfig: { maxGracePeriodSeconds: number | null; markGone: boolean } | null;
  version: string | null;
  firstSeenAt: Date;
}

export interface TaskRow {
  taskId: string;
  frameworkId: string;
  agentId: string;
  name: string;
  role: string;
  resources: ResourceEntry[];
  state: TaskState;
  updatedAt: Date;
  healthy: boolean | null;
  labels: Array<{ key: string; value?: string }> | null;
  /** Its framework's user ('' when it named none): the view_tasks ACL's object. */
  user: string;
}

@Injectable()
export class OperatorStateRepository {
  constructor(private readonly db: Database) {}

  /** Agents not marked gone, by hostname. */
  agents(limit: number): Promise<AgentRow[]> {
    return this.db.manager.query(
      `SELECT id, hostname, address, attributes, resources, status, activated, drain_state AS "drainState",
              drain_config AS "drainConfig", version, first_seen_at AS "firstSeenAt"
         FROM agents WHERE status <> 'GONE' ORDER BY hostname LIMIT $1`,
      [limit],
    );
  }

  /** Tasks, newest first, with their framework's user. */
  tasks(limit: number): Promise<TaskRow[]> {
    return this.db.manager.query(
      `SELECT t.task_id AS "taskId", t.framework_id AS "frameworkId", t.agent_id AS "agentId", t.name, t.role, t.resources,
              t.state, t.updated_at AS "updatedAt", t.healthy, t.labels, COALESCE(f."user", '') AS "user"
         FROM tasks t JOIN frameworks f ON f.id = t.framework_id
        ORDER BY t.created_at DESC LIMIT $1`,
      [limit],
    );
  }
}
