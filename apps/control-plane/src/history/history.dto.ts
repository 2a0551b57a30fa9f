import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CAPPED_PAGE_DOCS, PageQueryDto } from '../common/pagination.dto';
import { OfferDto } from '../offers/offers.dto';

const ISO = { message: (a: { property: string }) => `${a.property} must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z` };

class TimeRangeDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'cycles at or after this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, ISO)
  from?: string;

  @ApiPropertyOptional({ description: 'cycles before this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, ISO)
  to?: string;
}

export class CycleListQueryDto extends TimeRangeDto {
  @ApiPropertyOptional({ description: 'cycles that offered to this role' }) @IsOptional() @MaxLength(255) @IsString() role?: string;
  @ApiPropertyOptional({ description: 'cycles that offered to this framework' })
  @IsOptional()
  @MaxLength(255)
  @IsString()
  frameworkId?: string;
  @ApiPropertyOptional({ description: "cycles that offered this agent's resources" })
  @IsOptional()
  @MaxLength(255)
  @IsString()
  agentId?: string;
}

export class SharesQueryDto {
  @ApiProperty({ enum: ['ROLE', 'FRAMEWORK'] })
  @IsIn(['ROLE', 'FRAMEWORK'], { message: 'kind must be ROLE or FRAMEWORK' })
  kind!: 'ROLE' | 'FRAMEWORK';

  @ApiPropertyOptional({ description: 'one role path or framework id; absent: all' })
  @IsOptional()
  @MaxLength(255)
  @IsString()
  client?: string;

  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }, ISO) from?: string;
  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }, ISO) to?: string;

  @ApiPropertyOptional({ default: 1000, maximum: 10_000, description: 'most points returned (newest kept)' })
  @IsOptional()
  @Type(() => Number)
  @Min(1)
  @Max(10_000)
  @IsInt({ message: 'points must be a whole number' })
  points: number = 1000;
}

export class ExportQueryDto {
  @ApiProperty({ enum: ['csv', 'json'] })
  @IsIn(['csv', 'json'], { message: 'format must be csv or json' })
  format!: 'csv' | 'json';

  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }, ISO) from?: string;
  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }, ISO) to?: string;
}

export class CycleDto {
  @ApiProperty() id!: string;
  @ApiProperty() startedAt!: string;
  @ApiProperty({ description: 'time the allocator took, in milliseconds' }) durationMs!: number;
  @ApiProperty() offerCount!: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'number' }, description: 'decisions counted by reason' })
  reasons?: Record<string, number>;
}

export class CyclePageDto {
  @ApiProperty({ type: [CycleDto] }) items!: CycleDto[];
  @ApiProperty({ description: CAPPED_PAGE_DOCS.total }) total!: number;
  @ApiProperty({ description: CAPPED_PAGE_DOCS.totalCapped }) totalCapped!: boolean;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

class ShareDto {
  @ApiProperty({ enum: ['ROLE', 'FRAMEWORK'] }) kind!: string;
  @ApiProperty() client!: string;
  @ApiProperty() dominantShare!: number;
}

export class CycleDetailDto extends CycleDto {
  @ApiProperty({ type: [OfferDto] }) offers!: OfferDto[];
  @ApiProperty({ type: [ShareDto] }) shares!: ShareDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'the decision trace: {entries, counts, truncated}',
  })
  trace!: unknown;
}

export class SharePointDto {
  @ApiProperty() cycleId!: string;
  @ApiProperty() at!: string;
  @ApiProperty() client!: string;
  @ApiProperty() dominantShare!: number;
}
