import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { CommonErrorCode } from './errors.codes';
import { allErrorCodes, type ErrorCode } from './errors.mapping';

class ErrorDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({
    description: 'stable machine-readable code',
    enum: allErrorCodes().map((c) => c.code),
    enumName: 'ErrorCode',
    example: 'VALIDATION_FAILED',
  })
  code!: string;

  @ApiProperty({ example: 'invalid request: weight must be a positive number' })
  message!: string;

  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'structured context, e.g. the fields that failed validation',
  })
  details!: Record<string, unknown> | null;
}

/** Documents the error responses of a route: one response per status, listing its codes. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  const statusOf = new Map(allErrorCodes().map((c) => [c.code, c.status]));
  // Every route validates its input and is behind the auth guard (auth/auth.errors.ts's codes).
  const always: ErrorCode[] = [CommonErrorCode.VALIDATION_FAILED, 'AUTH_TOKEN_MISSING', 'AUTH_TOKEN_INVALID', 'FORBIDDEN'];
  for (const code of [...always, ...codes]) {
    const status = statusOf.get(code) ?? 500;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return applyDecorators(
    ...[...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => ApiResponse({ status, type: ErrorDto, description: list.join(', ') })),
  );
}
