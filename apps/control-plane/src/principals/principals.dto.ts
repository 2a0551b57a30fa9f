/** Principals and their tokens: request and response shapes. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PrincipalKind } from '../auth/principal.entity';

const MAX_TOKEN_TTL_SECONDS = 10 * 365 * 24 * 3600;

export class CreatePrincipalDto {
  @ApiProperty({
    example: 'team-a-scheduler',
    description: "unique; letters, digits and . _ @ - (no ':', which ends the principal in Basic authentication)",
  })
  @Matches(/^[A-Za-z0-9._@-]+$/, {
    message: "name must be letters, digits and . _ @ - only (no ':': Basic authentication reads the principal up to the first ':')",
  })
  @MaxLength(128, { message: 'name has at most 128 characters' })
  @IsString({ message: 'name must be a string' })
  name!: string;

  @ApiProperty({ enum: PrincipalKind, enumName: 'PrincipalKind', description: 'what the principal may do (see docs/security.md)' })
  @IsEnum(PrincipalKind, { message: `kind must be one of ${Object.values(PrincipalKind).join(', ')}` })
  kind!: PrincipalKind;

  @ApiPropertyOptional({ example: "team A's batch scheduler" })
  @IsOptional()
  @MaxLength(1000)
  @IsString()
  description?: string;
}

export class PrincipalDto {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: PrincipalKind, enumName: 'PrincipalKind' }) kind!: PrincipalKind;
  @ApiProperty() description!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'disabled principals cannot authenticate' })
  disabledAt!: string | null;
  @ApiProperty({ description: 'tokens neither revoked nor expired' }) liveTokens!: number;
}

export class CreateTokenDto {
  @ApiPropertyOptional({ example: 'ci pipeline', description: 'what the token is for' })
  @IsOptional()
  @MaxLength(255)
  @IsString()
  name?: string;

  @ApiPropertyOptional({ example: 2592000, description: 'seconds until the token expires (default: never)' })
  @IsOptional()
  @Max(MAX_TOKEN_TTL_SECONDS, { message: 'ttlSeconds is at most ten years' })
  @Min(60, { message: 'ttlSeconds is at least 60' })
  @IsInt({ message: 'ttlSeconds must be a whole number of seconds' })
  ttlSeconds?: number;
}

export class TokenDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() principal!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt!: string | null;
}

export class IssuedTokenDto extends TokenDto {
  @ApiProperty({ description: 'the secret: shown only in this answer, stored only as its hash', example: 'arb_...' })
  token!: string;
}
