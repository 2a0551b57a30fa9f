import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';

/** A transaction (or the pool, outside one): what services hand to repositories. */
export type Tx = EntityManager;

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

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
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
