/** Counting the matches of a list query, capped. */
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { COUNT_AHEAD } from '../common/pagination.dto';

/**
 * The total of a list of the history's large tables (offers, tasks, cycles), counted up to
 * `offset + COUNT_AHEAD` matches: an exact count reads every match, seconds on a week of offers.
 */
export async function cappedTotal(q: SelectQueryBuilder<ObjectLiteral>, offset: number): Promise<{ total: number; totalCapped: boolean }> {
  const cap = offset + COUNT_AHEAD;
  const [sql, params] = q
    .clone()
    .orderBy()
    .skip(undefined)
    .take(undefined)
    .offset(undefined)
    .select('1', 'one')
    .limit(cap + 1)
    .getQueryAndParameters();
  const [row]: Array<{ n: number }> = await q.dataSource.query(`SELECT count(*)::int AS n FROM (${sql}) matches`, params);
  return { total: Math.min(row.n, cap), totalCapped: row.n > cap };
}
