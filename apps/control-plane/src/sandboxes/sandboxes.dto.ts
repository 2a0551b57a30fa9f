/** The sandbox files API's request and response shapes (Mesos's /files/browse and /files/read). */
import { FILES_READ_MAX, SANDBOX_PATH_MAX } from '@arbiter/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

export class FilesBrowseQueryDto {
  @ApiPropertyOptional({
    description: "a directory in the task's sandbox, relative to it (default: the sandbox itself)",
    maxLength: SANDBOX_PATH_MAX,
  })
  @IsOptional()
  @MaxLength(SANDBOX_PATH_MAX)
  @IsString()
  path?: string;
}

export class FilesReadQueryDto {
  @ApiProperty({ description: "a file in the task's sandbox, relative to it (e.g. stdout)", maxLength: SANDBOX_PATH_MAX })
  @MaxLength(SANDBOX_PATH_MAX)
  @MinLength(1)
  @IsString()
  path!: string;

  @ApiPropertyOptional({
    minimum: -1,
    default: 0,
    description: "where to read from; -1 reads nothing and answers the file's size as the offset",
  })
  @Type(() => Number)
  @Min(-1)
  @Max(Number.MAX_SAFE_INTEGER)
  @IsInt({ message: 'offset must be a whole number' })
  offset: number = 0;

  @ApiPropertyOptional({ minimum: 0, maximum: FILES_READ_MAX, description: `bytes to read (at most ${FILES_READ_MAX}, the default)` })
  @IsOptional()
  @Type(() => Number)
  @Min(0)
  @Max(FILES_READ_MAX)
  @IsInt({ message: 'length must be a whole number' })
  length?: number;

  @ApiPropertyOptional({
    enum: ['utf8', 'base64'],
    default: 'utf8',
    description: 'how `data` carries the bytes (base64: exactly, for binary files or byte-exact followers)',
  })
  @IsOptional()
  @IsIn(['utf8', 'base64'], { message: 'encoding must be utf8 or base64' })
  encoding?: 'utf8' | 'base64';
}

export class FileDownloadQueryDto {
  @ApiProperty({ description: "a file in the task's sandbox, relative to it", maxLength: SANDBOX_PATH_MAX })
  @MaxLength(SANDBOX_PATH_MAX)
  @MinLength(1)
  @IsString()
  path!: string;
}

export class FileEntryDto {
  @ApiProperty({ description: 'relative to the sandbox' }) path!: string;
  @ApiProperty({ enum: ['file', 'directory', 'symlink', 'other'] }) type!: 'file' | 'directory' | 'symlink' | 'other';
  @ApiProperty() size!: number;
  @ApiProperty({ description: 'last modified, seconds since the epoch' }) mtime!: number;
  @ApiProperty({ description: 'as `ls -l` writes it, e.g. -rw-r--r--' }) mode!: string;
  @ApiProperty() nlink!: number;
  @ApiProperty() uid!: number;
  @ApiProperty() gid!: number;
}

class TaskLogsDto {
  @ApiProperty({ description: "the task's stdout, relative to the sandbox" }) stdout!: string;
  @ApiProperty({ description: "the task's stderr, relative to the sandbox" }) stderr!: string;
}

export class FilesBrowseDto {
  @ApiProperty({ type: [FileEntryDto], description: "the directory's entries by name (a file's own entry when the path names a file)" })
  entries!: FileEntryDto[];
  @ApiProperty({ description: 'more entries than one answer holds; the rest are left out' }) truncated!: boolean;
  @ApiProperty({ type: TaskLogsDto, description: "where the task's own logs are in this sandbox" }) logs!: TaskLogsDto;
}

export class FilesReadDto {
  @ApiProperty({ description: 'the bytes read, as UTF-8 text (or base64, as asked)' }) data!: string;
  @ApiProperty({ description: 'where they start (with offset -1: the file size); the next read starts at offset + their byte length' })
  offset!: number;
  @ApiProperty({ description: 'their length in bytes' }) length!: number;
  @ApiProperty({ description: "the file's size now; smaller than a follower's offset once the log was rotated (read again from 0)" })
  size!: number;
}
