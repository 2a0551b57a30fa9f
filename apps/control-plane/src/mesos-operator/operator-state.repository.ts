/**
 * The operator API's whole-cluster reads in plain SQL rows: every agent and every task (live and
 * kept ended ones) of a cluster at once, without building the REST API's entities and views one
 * by one, which takes seconds at 10,000 agents and 30,000 tasks (docs/benchmarks.md). Each is
 * read in two steps: first every row's key and version (a few plain columns, no JSON to parse),
 * then whole rows only for the keys the caller does not hold at that version
 * (operator-fragments.ts keeps them). The caller's view ACLs are applied to the rows by
 * OperatorReads, as the REST services apply them.
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

/** A row's key and version (`stamp`): the stamp changes whenever anything of the row the answers show does. */
export interface Versioned {
  key: string;
  stamp: string;
}

/** An agent's key and version, with the view_agents ACL's object. */
export type AgentVersion = Versioned & { hostname: string };
/** A task's key and version, with the view_tasks ACL's object. */
export type TaskVersion = Versioned & { user: string };

/** Everything an agent's message shows, as one text (its JSON columns by their digest). */
const AGENT_VERSION = `concat_ws('|', a.status, a.activated, a.drain_state, md5(COALESCE(a.drain_config::text, '')), a.version, a.address,
  a.hostname, (extract(epoch FROM a.first_seen_at) * 1000)::bigint, md5(a.resources::text), md5(a.attributes::text))`;
/** What may change in a task once it is stored: its state, health and last update (its name, resources and labels never do). */
const TASK_VERSION = `concat_ws('|', t.state, t.healthy, (extract(epoch FROM t.updated_at) * 1000000)::bigint, f."user")`;

@Injectable()
export class OperatorStateRepository {
  constructor(private readonly db: Database) {}

  /** Agents not marked gone, by hostname: their keys and versions. */
  agentVersions(limit: number): Promise<AgentVersion[]> {
    return this.db.manager.query(
      `SELECT a.id AS key, a.hostname, ${AGENT_VERSION} AS stamp FROM agents a WHERE a.status <> 'GONE' ORDER BY a.hostname LIMIT $1`,
      [limit],
    );
  }

  /** The agents of these keys, whole, with their versions. */
  agents(keys: string[]): Promise<Array<AgentRow & Versioned>> {
    if (!keys.length) return Promise.resolve([]);
    return this.db.manager.query(
      `SELECT a.id AS key, ${AGENT_VERSION} AS stamp, a.id, a.hostname, a.address, a.attributes, a.resources, a.status, a.activated,
              a.drain_state AS "drainState", a.drain_config AS "drainConfig", a.version, a.first_seen_at AS "firstSeenAt"
         FROM agents a WHERE a.id = ANY($1::text[])`,
      [keys],
    );
  }

  /** Tasks, newest first: their keys and versions, with their framework's user. */
  taskVersions(limit: number): Promise<TaskVersion[]> {
    return this.db.manager.query(
      `SELECT t.id AS key, COALESCE(f."user", '') AS "user", ${TASK_VERSION} AS stamp
         FROM tasks t JOIN frameworks f ON f.id = t.framework_id
        ORDER BY t.created_at DESC LIMIT $1`,
      [limit],
    );
  }

  /** The tasks of these keys, whole, with their versions and their framework's user. */
  tasks(keys: string[]): Promise<Array<TaskRow & Versioned>> {
    if (!keys.length) return Promise.resolve([]);
    return this.db.manager.query(
      `SELECT t.id AS key, ${TASK_VERSION} AS stamp, t.task_id AS "taskId", t.framework_id AS "frameworkId", t.agent_id AS "agentId",
              t.name, t.role, t.resources, t.state, t.updated_at AS "updatedAt", t.healthy, t.labels, COALESCE(f."user", '') AS "user"
         FROM tasks t JOIN frameworks f ON f.id = t.framework_id
        WHERE t.id = ANY($1::uuid[])`,
      [keys],
    );
  }
}
