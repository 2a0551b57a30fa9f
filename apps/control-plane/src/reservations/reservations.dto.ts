/** The reservations API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { Resources } from '@arbiter/allocator';
import { PageQueryDto } from '../common/pagination.dto';
import { IsResources, RESOURCES_INPUT_SCHEMA, ResourceEntryDto } from '../common/resources.dto';
import type { ReservationEntity } from './reservation.entity';

export class ReservationQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() role?: string;
}

export class CreateReservationDto {
  @ApiProperty() @MaxLength(255) @IsString() agentId!: string;
  @ApiProperty({ example: 'eng' }) @MaxLength(255) @IsString() role!: string;
  @ApiPropertyOptional({
    example: 'eng',
    description:
      'refinement: take the resources from the reservations of this role (a strict ancestor of `role`) on the agent instead of its unreserved resources; removing the refined reservation gives them back to it',
  })
  @IsOptional()
  @MaxLength(255)
  @IsString()
  refines?: string;
  @ApiProperty({ ...RESOURCES_INPUT_SCHEMA, description: 'unreserved resources to reserve, e.g. "cpus:2;mem:4096"' })
  @IsResources({ unreservedOnly: true, nonEmpty: true })
  resources!: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { team: 'ml' } })
  @IsOptional()
  @IsObject({ message: 'labels must be an object of strings' })
  labels?: Record<string, string>;
}

export class ReservationDto {
  @ApiProperty() id!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() role!: string;
  @ApiProperty({ type: [ResourceEntryDto] }) resources!: ResourceEntryDto[];
  @ApiProperty({ example: 'cpus(eng):2;mem(eng):4096' }) resourcesText!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ description: 'who reserved: an operator or framework:<id>' }) principal!: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', properties: { role: { type: 'string' }, principal: { type: 'string' } } },
    description: 'refinement: the reservation layers below this one, bottom first (empty when it reserved unreserved resources)',
  })
  refines!: Array<{ role: string; principal: string }>;
  @ApiProperty() createdAt!: string;
}

export class ReservationPageDto {
  @ApiProperty({ type: [ReservationDto] }) items!: ReservationDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export const toReservationDto = (r: ReservationEntity): ReservationDto => ({
  id: r.id,
  agentId: r.agentId,
  role: r.role,
  resources: r.resources,
  resourcesText: Resources.of(r.resources).toString(),
  labels: r.labels,
  principal: r.principal,
  refines: r.refines,
  createdAt: r.createdAt.toISOString(),
});
