/** A protocol failure answered to the caller as `{ ok: false, error }`. */
export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
