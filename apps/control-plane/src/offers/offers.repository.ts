/**
 * How offers are read and closed in SQL. An offer's row in `offers` is its record; while it is
 * outstanding its id is also in `outstanding_offers`, and closing it does both in one statement.
 */
import type { ViewScope } from '../common/view-scopes';
import { scopeCondition } from '../database/scope-condition';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { cappedTotal } from '../database/database.paging';
import { OfferEntity, OfferState, OutstandingOfferEntity } from './offer.entity';

/** The outstanding offers, as a query to narrow further (alias `o`). */
export function outstandingOffers(tx: EntityManager): SelectQueryBuilder<OfferEntity> {
  return tx.createQueryBuilder(OfferEntity, 'o').innerJoin(OutstandingOfferEntity, 'x', 'x.offer_id = o.id');
}

/**
 * Common table expressions that close offers: $1 the time, $2 their ids, $3 their new states.
 * The statement that uses them may go on (`WITH ${CLOSE_OFFERS} INSERT ...`).
 */
export const CLOSE_OFFERS = `gone AS (DELETE FROM outstanding_offers WHERE offer_id = ANY($2::uuid[])),
       closed AS (UPDATE offers o SET state = c.state::offer_state, closed_at = $1 FROM unnest($2::uuid[], $3::text[]) AS c(id, state) WHERE o.id = c.id)`;

/** Closes offers, each with its state. */
export async function closeOffers(tx: EntityManager, states: Map<string, OfferState>, at: Date): Promise<void> {
  if (!states.size) return;
  await tx.query(`WITH ${CLOSE_OFFERS} SELECT 1`, [at, [...states.keys()], [...states.values()]]);
}

/** Rescinds every outstanding offer (on start-up: offers made before it are void). */
export async function rescindAllOutstandingOffers(tx: EntityManager, at: Date): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM outstanding_offers RETURNING offer_id) UPDATE offers o SET state = 'RESCINDED', closed_at = $1 FROM gone WHERE o.id = gone.offer_id`,
    [at],
  );
}

/** A task row as the launch inserts it. */
export interface LaunchedTaskRow {
  id: string;
  taskId: string;
  frameworkId: string;
  agentId: string;
  name: string;
  role: string;
  resources: unknown;
  command: unknown;
  /** Its OS user (null: the framework's dynamic user on the agent). */
  user?: string | null;
  labels?: unknown;
  discovery?: unknown;
  dataBytes?: number | null;
  killGracePeriodSeconds?: number | null;
  maxCompletionTimeSeconds?: number | null;
  /** Its container (null: a plain process). */
  container?: unknown;
  /** When it was launched (the accept's time). */
  createdAt: Date;
  /** Which answer of the write launched it. */
  answer: number;
}

/** An offer closed by an answer, at the time of the answer. */
export interface ClosedOffer {
  id: string;
  state: OfferState;
  at: Date;
  /** Which answer of the write closed it. */
  answer: number;
}

/** An answer that launched nothing: one of its task ids was used before by its framework. */
export interface RefusedAnswer {
  answer: number;
  taskId: string;
}

/** The master's writes of offers: closing them, and the answers to them with the tasks they launch. */
@Injectable()
export class OffersRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  rescindAllOutstanding(at: Date): Promise<void> {
    return rescindAllOutstandingOffers(this.dataSource.manager, at);
  }

  close(states: Map<string, OfferState>, at: Date): Promise<void> {
    return closeOffers(this.dataSource.manager, states, at);
  }

  find(id: string): Promise<OfferEntity | null> {
    return this.dataSource.manager.findOne(OfferEntity, { where: { id } });
  }

  /**
   * Answers written: their offers closed (accepted or declined) and their tasks inserted as
   * STAGING, in one statement, so one round trip and all or nothing. Each offer closes, and each
   * task starts, at the time of its answer (not of the write, which a busy lane may delay past the
   * next cycle's offers).
   *
   * An answer with a task id its framework used before (a stored task, ended or not: task ids
   * are never reused) launches nothing: its offers close as RESCINDED and it is returned, with
   * the first such task id in its order. The check is part of the write, so accepts take no round trip before it.
   */
  async writeAnswers(offers: ClosedOffer[], tasks: LaunchedTaskRow[]): Promise<RefusedAnswer[]> {
    const rows: Array<{ answer: number; task_id: string }> = await this.dataSource.query(
      `WITH v AS (
         SELECT * FROM unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
                              $13::timestamptz[], $14::int[], $15::text[], $16::text[], $17::text[], $18::int[], $19::float8[], $20::float8[],
                              $21::text[])
           WITH ORDINALITY AS v(id, task_id, framework_id, agent_id, name, role, resources, command, at, answer, user_name,
                                labels, discovery, data_bytes, kill_grace, max_completion, container, ord)),
       refused AS (
         SELECT DISTINCT ON (v.answer) v.answer, v.task_id FROM v
           JOIN tasks t ON t.framework_id = v.framework_id AND t.task_id = v.task_id ORDER BY v.answer, v.ord),
       gone AS (DELETE FROM outstanding_offers WHERE offer_id = ANY($1::uuid[])),
       closed AS (UPDATE offers o
                    SET state = (CASE WHEN c.answer IN (SELECT answer FROM refused) THEN 'RESCINDED' ELSE c.state END)::offer_state,
                        closed_at = c.at
                    FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[]) AS c(id, state, at, answer) WHERE o.id = c.id),
       launched AS (
         INSERT INTO tasks (id, task_id, framework_id, agent_id, name, role, resources, command, "user", state, created_at, updated_at,
                            labels, discovery, data_bytes, kill_grace_period_seconds, max_completion_time_seconds, container)
         SELECT v.id, v.task_id, v.framework_id, v.agent_id, v.name, v.role, v.resources::jsonb, v.command::jsonb, v.user_name, 'STAGING',
                v.at, v.at, v.labels::jsonb, v.discovery::jsonb, v.data_bytes, v.kill_grace, v.max_completion,
                v.container::jsonb
           FROM v WHERE v.answer NOT IN (SELECT answer FROM refused))
       SELECT answer, task_id FROM refused`,
      [
        offers.map((o) => o.id),
        offers.map((o) => o.state),
        offers.map((o) => o.at),
        offers.map((o) => o.answer),
        tasks.map((t) => t.id),
        tasks.map((t) => t.taskId),
        tasks.map((t) => t.frameworkId),
        tasks.map((t) => t.agentId),
        tasks.map((t) => t.name),
        tasks.map((t) => t.role),
        tasks.map((t) => JSON.stringify(t.resources)),
        tasks.map((t) => JSON.stringify(t.command)),
        tasks.map((t) => t.createdAt),
        tasks.map((t) => t.answer),
        tasks.map((t) => t.user ?? null),
        tasks.map((t) => (t.labels ? JSON.stringify(t.labels) : null)),
        tasks.map((t) => (t.discovery ? JSON.stringify(t.discovery) : null)),
        tasks.map((t) => t.dataBytes ?? null),
        tasks.map((t) => t.killGracePeriodSeconds ?? null),
        tasks.map((t) => t.maxCompletionTimeSeconds ?? null),
        tasks.map((t) => (t.container ? JSON.stringify(t.container) : null)),
      ],
    );
    return rows.map((r) => ({ answer: r.answer, taskId: r.task_id }));
  }
}

/** Offers as operators list them, newest first. */
@Injectable()
export class OfferListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `users` and `roles`: the framework users and roles whose offers the caller may see (view_frameworks, view_roles). */
  async list(
    filter: { state?: OfferState; frameworkId?: string; agentId?: string; users?: ViewScope; roles?: ViewScope },
    limit: number,
    offset: number,
  ): Promise<{ rows: OfferEntity[]; total: number; totalCapped: boolean }> {
    const tx = this.dataSource.manager;
    // Outstanding offers through their own small table; the others by state (not indexed: closing an offer touches no index).
    const q = filter.state === OfferState.OUTSTANDING ? outstandingOffers(tx) : tx.createQueryBuilder(OfferEntity, 'o');
    if (filter.state && filter.state !== OfferState.OUTSTANDING) q.andWhere('o.state = :state', { state: filter.state });
    if (filter.frameworkId) q.andWhere('o.framework_id = :frameworkId', { frameworkId: filter.frameworkId });
    if (filter.agentId) q.andWhere('o.agent_id = :agentId', { agentId: filter.agentId });
    const users = filter.users;
    if (users && 'only' in users)
      q.andWhere("o.framework_id IN (SELECT f.id FROM frameworks f WHERE COALESCE(f.user, '') = ANY(:users))", { users: users.only });
    else if (users?.except.length)
      q.andWhere("o.framework_id NOT IN (SELECT f.id FROM frameworks f WHERE COALESCE(f.user, '') = ANY(:users))", { users: users.except });
    if (filter.roles && ('only' in filter.roles || filter.roles.except.length))
      q.andWhere(...scopeCondition('o.role', filter.roles, 'roles'));
    const [rows, count] = await Promise.all([
      q.clone().orderBy('o.created_at', 'DESC').addOrderBy('o.id', 'ASC').take(limit).skip(offset).getMany(),
      cappedTotal(q, offset),
    ]);
    return { rows, ...count };
  }
}
