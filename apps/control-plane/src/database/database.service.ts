import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';

/** A transaction (or the pool, outside one): what services hand to repositories. */
export type Tx = EntityManager;

/**
 * Runs independent reads: side by side on the pool, one after another in a transaction (whose
 * one connection takes one query at a time; pg deprecates queueing them on it).
 */
export async function reads<T extends readonly unknown[]>(tx: Tx, steps: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  if (!tx.queryRunner) return (await Promise.all(steps.map((step) => step()))) as unknown as T;
  const out: unknown[] = [];
  for (const step of steps) out.push(await step());
  return out as unknown as T;
}

/** The Postgres error code of a failed query, if it is one. */
export function databaseErrorCode(err: unknown): string | undefined {
  return err instanceof QueryFailedError ? (err.driverError as { code?: string }).code : undefined;
}

/**
 * Whether PostgreSQL refused a statement for the data it carried (SQLSTATE classes 22, data
 * exception, and 23, integrity constraint violation), rather than for the connection, the
 * server or the leadership term: a batch that fails so may owe it to one of its items.
 */
export function isDataError(err: unknown): boolean {
  const code = databaseErrorCode(err) ?? (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Codes and messages of a database that cannot be reached or went silent: refused or reset
 * connections, a server shutting down, and the driver's own timeouts (a query unanswered
 * after the pool's query timeout, no connection within the connect timeout), which carry no
 * code.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
]);
const UNAVAILABLE_MESSAGES =
  /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Whether `err` says the database is unreachable or silent (as opposed to refusing a statement). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const driver = err instanceof QueryFailedError ? (err.driverError as unknown) : err;
  const e = driver as { code?: unknown; message?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message);
}

/** Postgres error codes worth one more try: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

/**
 * The transaction boundary services use. Invariants that span rows (capacity of quotas, free
 * resources for reservations, one window per machine) are checked under an advisory lock per
 * domain, so two concurrent requests cannot both pass a check that only one of them may.
 */
@Injectable()
export class Database {
  constructor(private readonly dataSource: DataSource) {}

  /** Reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async transaction<T>(work: (tx: EntityManager) => Promise<T>, attempts = 3): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (err) {
        const code = databaseErrorCode(err);
        if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw err;
      }
    }
  }

  /** A round trip to the database; fails when it takes longer than `timeoutMs` (the query is left to the pool's own timeout). */
  async ping(timeoutMs?: number): Promise<void> {
    const query = this.dataSource.query('SELECT 1');
    if (timeoutMs === undefined) {
      await query;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    query.catch(() => undefined);
    try {
      await Promise.race([query, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Advisory-lock keys (pg_advisory_xact_lock) of the domains with cross-row invariants. */
export enum LockDomain {
  RESOURCES = 1001,
  MAINTENANCE = 1002,
  ROLES = 1003,
  AUTH = 1004,
}

export async function lockDomain(tx: EntityManager, domain: LockDomain): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [domain]);
}
