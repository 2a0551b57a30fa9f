/** The persistent volumes API's request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../common/pagination.dto';
import type { VolumeEntity } from './volume.entity';

/** A disk other than the agent's root disk (Mesos's `disk.source`). */
export class DiskSourceDto {
  @ApiProperty({ enum: ['PATH', 'MOUNT'] }) type!: 'PATH' | 'MOUNT';
  @ApiProperty({ example: '/mnt/disk1' }) root!: string;
}

export class PersistentVolumeQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() agentId?: string;
  @ApiPropertyOptional() @IsOptional() @MaxLength(255) @IsString() role?: string;
}

export class CreatePersistentVolumeDto {
  @ApiProperty() @MaxLength(255) @IsString() agentId!: string;
  @ApiProperty({ example: 'db', description: 'the role whose reserved disk the volume takes' }) @MaxLength(255) @IsString() role!: string;
  @ApiProperty({ example: 'data-1', description: "the persistence id (Mesos's disk.persistence.id), unique per role on the agent" })
  @MaxLength(128)
  @IsString()
  persistenceId!: string;
  @ApiProperty({ example: 512, description: 'size in MB, taken from the role’s reserved disk on the agent' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  disk!: number;
  @ApiProperty({ example: 'data', description: 'where tasks see it: relative to the sandbox, or absolute in an image' })
  @MaxLength(1024)
  @IsString()
  containerPath!: string;
  @ApiPropertyOptional({ enum: ['RW', 'RO'], default: 'RW' }) @IsOptional() @IsIn(['RW', 'RO']) mode?: 'RW' | 'RO';
  @ApiPropertyOptional({ type: DiskSourceDto, description: 'the disk to make it on, when not the root disk (a MOUNT disk is taken whole)' })
  @IsOptional()
  source?: unknown;
}

export class PersistentVolumeDto {
  @ApiProperty() id!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty() role!: string;
  @ApiProperty() persistenceId!: string;
  @ApiProperty({ description: 'size in MB' }) disk!: number;
  @ApiProperty() containerPath!: string;
  @ApiProperty({ enum: ['RW', 'RO'] }) mode!: string;
  @ApiProperty({ description: 'who created it (an operator, or a framework’s principal or framework:<id>)' }) principal!: string;
  @ApiPropertyOptional({ description: 'where it lives on its agent', nullable: true, type: String }) hostPath!: string | null;
  @ApiPropertyOptional({ type: DiskSourceDto, nullable: true, description: 'its disk, when not the root disk' })
  source!: { type: 'PATH' | 'MOUNT'; root: string } | null;
  @ApiProperty({ description: 'shared by several tasks at once (made by a SHARED_RESOURCES framework)' }) shared!: boolean;
  @ApiProperty({ example: 'disk(db,volume=data-1):512', description: 'the resource tasks name to use it' }) resourcesText!: string;
  @ApiProperty() createdAt!: string;
  @ApiPropertyOptional({ type: [String], description: 'frameworks whose live tasks or executors use it (lists and detail)' })
  inUseBy?: string[];
}

export class PersistentVolumePageDto {
  @ApiProperty({ type: [PersistentVolumeDto] }) items!: PersistentVolumeDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export const toVolumeDto = (v: VolumeEntity, inUseBy?: string[]): PersistentVolumeDto => ({
  id: v.id,
  agentId: v.agentId,
  role: v.role,
  persistenceId: v.persistenceId,
  disk: v.disk,
  containerPath: v.containerPath,
  mode: v.mode,
  principal: v.principal,
  hostPath: v.hostPath,
  source: v.source,
  shared: v.shared,
  resourcesText: `disk(${v.role},volume=${v.persistenceId}):${v.disk}`,
  createdAt: v.createdAt.toISOString(),
  ...(inUseBy ? { inUseBy } : {}),
});
