import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../common/pagination.dto';
import type { AuditEntryEntity } from './audit-entry.entity';

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: "principal name, e.g. 'admin'" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: "action, e.g. 'quota.update', or a prefix such as 'agent.*'" })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_.]+(\.\*)?$/, { message: "action must look like 'agent.drain' or 'agent.*'" })
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ description: "e.g. 'agent', 'role', 'reservation', 'whitelist', 'maintenance'" })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  targetType?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  targetId?: string;

  @ApiPropertyOptional({ description: 'entries at or after this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z' })
  since?: string;

  @ApiPropertyOptional({ description: 'entries before this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z' })
  until?: string;
}

class AuditEntryDto {
  @ApiProperty({ description: 'increasing sequence number' }) id!: string;
  @ApiProperty() at!: string;
  @ApiProperty({ description: 'principal name' }) actor!: string;
  @ApiProperty({ type: String, nullable: true }) tokenId!: string | null;
  @ApiProperty({ example: 'agent.deactivate' }) action!: string;
  @ApiProperty({ example: 'agent' }) targetType!: string;
  @ApiProperty({ type: String, nullable: true }) targetId!: string | null;
  @ApiProperty({ nullable: true, description: 'state before the change' }) before!: unknown;
  @ApiProperty({ nullable: true, description: 'state after the change' }) after!: unknown;
  @ApiProperty({ type: String, nullable: true }) requestId!: string | null;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items!: AuditEntryDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export function toAuditEntryDto(e: AuditEntryEntity): AuditEntryDto {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: e.actor,
    tokenId: e.tokenId,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    before: e.before,
    after: e.after,
    requestId: e.requestId,
  };
}
