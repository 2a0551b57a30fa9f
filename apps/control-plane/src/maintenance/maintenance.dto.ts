/** The maintenance API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class MachineDto {
  @ApiPropertyOptional({ example: 'node-1' }) @IsOptional() @MaxLength(253) @IsString() hostname?: string;
  @ApiPropertyOptional({ example: '10.0.0.5' }) @IsOptional() @MaxLength(45) @IsString() ip?: string;
}

class UnavailabilityDto {
  @ApiProperty({ example: '2026-12-01T02:00:00Z' })
  @IsISO8601({ strict: true }, { message: 'start must be an ISO 8601 date-time, e.g. 2026-12-01T02:00:00Z' })
  start!: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'seconds; absent or null: until maintenance is stopped',
    minimum: 0,
    maximum: 31_536_000,
  })
  @IsOptional()
  @Min(0, { message: 'durationSeconds must not be negative' })
  @Max(31_536_000, { message: 'durationSeconds must be at most a year (31536000)' })
  @IsInt({ message: 'durationSeconds must be a whole number of seconds' })
  durationSeconds?: number | null;
}

class WindowDto {
  @ApiProperty({ type: [MachineDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1, { message: 'a window needs at least one machine' })
  @IsArray()
  @Type(() => MachineDto)
  machines!: MachineDto[];

  @ApiProperty({ type: UnavailabilityDto })
  @ValidateNested()
  @IsObject({ message: '$property must be an object' })
  @Type(() => UnavailabilityDto)
  unavailability!: UnavailabilityDto;
}

export class ScheduleDto {
  @ApiProperty({ type: [WindowDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ArrayMaxSize(10_000)
  @IsArray()
  @Type(() => WindowDto)
  windows!: WindowDto[];
}

export class MachinesDto {
  @ApiProperty({ type: [MachineDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: '$property must be a list of objects' })
  @ArrayMaxSize(10_000)
  @ArrayMinSize(1, { message: 'name at least one machine' })
  @IsArray()
  @Type(() => MachineDto)
  machines!: MachineDto[];
}

class MachineIdDto {
  @ApiProperty() hostname!: string;
  @ApiProperty() ip!: string;
}

class InverseOfferStatusDto {
  @ApiProperty() frameworkId!: string;
  @ApiProperty({ enum: ['UNKNOWN', 'ACCEPT', 'DECLINE'] }) status!: string;
  @ApiProperty() updatedAt!: string;
}

class DrainingMachineDto {
  @ApiProperty({ type: MachineIdDto }) machine!: MachineIdDto;
  @ApiProperty({ type: [InverseOfferStatusDto] }) statuses!: InverseOfferStatusDto[];
}

export class MaintenanceStatusDto {
  @ApiProperty({ type: [DrainingMachineDto] }) drainingMachines!: DrainingMachineDto[];
  @ApiProperty({ type: [MachineIdDto] }) downMachines!: MachineIdDto[];
}
