/** The offers API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CAPPED_PAGE_DOCS, PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto } from '../common/resources.dto';
import { OfferState } from './offer.entity';

export class OfferListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: OfferState, enumName: 'OfferState' })
  @IsOptional()
  @IsIn(Object.values(OfferState), { message: `state must be one of ${Object.values(OfferState).join(', ')}` })
  state?: OfferState;

  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() frameworkId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
}

export class OfferDto {
  @ApiProperty() id!: string;
  @ApiProperty() frameworkId!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() role!: string;
  @ApiProperty({ type: [ResourceEntryDto] }) resources!: ResourceEntryDto[];
  @ApiProperty() resourcesText!: string;
  @ApiProperty({ enum: OfferState, enumName: 'OfferState' }) state!: OfferState;
  @ApiProperty({ type: String, nullable: true, description: 'allocation cycle that made the offer' }) cycleId!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ type: String, nullable: true }) closedAt!: string | null;
}

export class OfferPageDto {
  @ApiProperty({ type: [OfferDto] }) items!: OfferDto[];
  @ApiProperty({ description: CAPPED_PAGE_DOCS.total }) total!: number;
  @ApiProperty({ description: CAPPED_PAGE_DOCS.totalCapped }) totalCapped!: boolean;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}
