import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

const MAX_PAGE_SIZE = 500;

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

/** Swagger descriptions of a capped page's `total` and `totalCapped`. */
export const CAPPED_PAGE_DOCS = {
  total: `matches, counted up to offset + ${COUNT_AHEAD.toLocaleString('en-US')}`,
  totalCapped: `true when counting stopped at offset + ${COUNT_AHEAD.toLocaleString('en-US')} matches: there are more than \`total\``,
};
