import type { ErrorCode } from './errors.mapping';

/**
 * A failure the API reports to its caller: a stable `code` (mapped to an HTTP status in
 * errors.mapping.ts), a message a person can act on, and structured details.
 */
export class ArbiterException extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'ArbiterException';
  }
}
