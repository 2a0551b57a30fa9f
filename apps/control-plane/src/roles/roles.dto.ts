/** The roles, weights and quota API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsResources, RESOURCES_INPUT_SCHEMA, SCALAR_MAP_SCHEMA } from '../common/resources.dto';
import type { ScalarMap } from './quota.entity';
import { MAX_WEIGHT } from './roles.rules';

export class WeightDto {
  @ApiProperty({ example: 'eng' }) @MaxLength(255) @IsString() role!: string;
  @ApiProperty({ example: 2, minimum: 0, exclusiveMinimum: true, maximum: MAX_WEIGHT })
  @Max(MAX_WEIGHT)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'weight must be a number' })
  weight!: number;
}

export class UpdateWeightsDto {
  @ApiProperty({ type: [WeightDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1)
  @IsArray()
  @Type(() => WeightDto)
  weights!: WeightDto[];
}

export class QuotaInputDto {
  @ApiProperty({ example: 'eng', description: 'a top-level role' }) @MaxLength(255) @IsString() role!: string;
  @ApiPropertyOptional({ ...RESOURCES_INPUT_SCHEMA, description: 'guaranteed amounts: scalars only, e.g. "cpus:4;mem:8192"' })
  @IsOptional()
  @IsResources({ scalarsOnly: true })
  guarantees?: unknown;
  @ApiPropertyOptional({ ...RESOURCES_INPUT_SCHEMA, description: 'limits: scalars only; a resource not named is unlimited' })
  @IsOptional()
  @IsResources({ scalarsOnly: true })
  limits?: unknown;
}

export class UpdateQuotaDto {
  @ApiProperty({ type: [QuotaInputDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1)
  @IsArray()
  @Type(() => QuotaInputDto)
  quotas!: QuotaInputDto[];

  @ApiPropertyOptional({ default: false, description: 'accept guarantees beyond the cluster capacity' })
  @IsOptional()
  @IsBoolean({ message: 'force must be true or false' })
  force?: boolean;
}

const SCALARS = SCALAR_MAP_SCHEMA;

export class QuotaDto {
  @ApiProperty() role!: string;
  @ApiProperty(SCALARS) guarantees!: ScalarMap;
  @ApiProperty(SCALARS) limits!: ScalarMap;
}

export class RoleDto {
  @ApiProperty({ example: 'eng/ml' }) path!: string;
  @ApiProperty({ example: 1 }) weight!: number;
  @ApiProperty({ type: QuotaDto, nullable: true }) quota!: QuotaDto | null;
  @ApiProperty({ ...SCALARS, description: 'held by live tasks and outstanding offers' }) allocated!: ScalarMap;
  @ApiProperty({ ...SCALARS, description: 'reserved for the role' }) reserved!: ScalarMap;
  @ApiProperty({ type: [String], description: 'frameworks subscribed to the role' }) frameworks!: string[];
}
