import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export const MAX_PAGE_SIZE = 500;

/** `?limit=&offset=` of every list endpoint. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 })
  @Type(() => Number)
  // class-validator runs the decorators nearest the property first; stopAtFirstError keeps one.
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  @IsInt({ message: 'limit must be a whole number' })
  limit: number = 50;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @Type(() => Number)
  @Min(0)
  @Max(1_000_000_000)
  @IsInt({ message: 'offset must be a whole number' })
  offset: number = 0;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** A page of a list whose count stops (see `cappedTotal`). */
export interface CappedPage<T> extends Page<T> {
  /** There are more than `total` matches. */
  totalCapped: boolean;
}

/** Matches counted past a page's offset before counting stops. */
export const COUNT_AHEAD = 10_000;

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
  const [row]: Array<{ n: number }> = await q.connection.query(`SELECT count(*)::int AS n FROM (${sql}) matches`, params);
  return { total: Math.min(row.n, cap), totalCapped: row.n > cap };
}

/** Swagger descriptions of a capped page's `total` and `totalCapped`. */
export const CAPPED_PAGE_DOCS = {
  total: `matches, counted up to offset + ${COUNT_AHEAD.toLocaleString('en-US')}`,
  totalCapped: `true when counting stopped at offset + ${COUNT_AHEAD.toLocaleString('en-US')} matches: there are more than \`total\``,
};
