/**
 * How offers are read and closed in SQL. An offer's row in `offers` is its record; while it is
 * outstanding its id is also in `outstanding_offers`, and closing it does both in one statement.
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { OfferEntity, type OfferState, OutstandingOfferEntity } from './offer.entity';

/** The outstanding offers' rows, in SQL (a subquery with every column of `offers`). */
export const OUTSTANDING_OFFERS_SQL = 'SELECT o.* FROM offers o JOIN outstanding_offers x ON x.offer_id = o.id';

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
