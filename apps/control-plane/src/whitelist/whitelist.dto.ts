/** The whitelist API's request and response shapes. */
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

/**
 * A list of hostnames. The checks run in the order applied here (stopAtFirstError reports the
 * first that fails): a list, not too long, of strings, short, well-formed.
 */
const IsHostnames = (notAList: string) =>
  applyDecorators(
    IsArray({ message: notAList }),
    ArrayMaxSize(100_000),
    IsString({ each: true, message: 'each hostname must be a string' }),
    MaxLength(253, { each: true, message: 'a hostname has at most 253 characters' }),
    Matches(/^[^\s,;]+$/, { each: true, message: 'a hostname must be non-empty and have no spaces, commas or semicolons' }),
  );

export class WhitelistDto {
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'null: every agent may be offered; []: none may',
    example: ['node-1', 'node-2'],
  })
  // class-validator runs the decorators nearest the property first (stopAtFirstError keeps one).
  @IsHostnames('hostnames must be a list of hostnames or null')
  @ValidateIf((_, v) => v !== null)
  @IsDefined({ message: 'hostnames is required (null for no whitelist)' })
  hostnames!: string[] | null;
}

export class WhitelistChangeDto {
  @ApiPropertyOptional({
    type: [String],
    description: 'hostnames to whitelist (nothing changes for them while there is no whitelist)',
    example: ['node-3'],
  })
  @IsHostnames('add must be a list of hostnames')
  @IsOptional()
  add?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'hostnames to take off the whitelist; with no whitelist set, this sets one: every present agent (not GONE) but these',
    example: ['node-1'],
  })
  @IsHostnames('remove must be a list of hostnames')
  @IsOptional()
  remove?: string[];
}
