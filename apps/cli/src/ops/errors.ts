/**
 * How the CLI fails: one sentence on stderr, `arbiter: <what> (<API code>): <the API's message>`,
 * and an exit code a script can branch on:
 *
 *   0  done
 *   1  the control plane refused or failed the operation (a conflict, a validation error, 5xx)
 *   2  usage: a bad flag or argument, no master or token given (nothing was sent)
 *   3  not found: the agent, task, framework... does not exist (HTTP 404)
 *   4  not allowed: the token is missing, invalid, or its principal may not do this (HTTP 401, 403)
 *   5  unreachable: no control plane of the list answered
 */
import { CredentialsError } from '../credentials';

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, NOT_FOUND: 3, FORBIDDEN: 4, UNREACHABLE: 5 } as const;

/** Bad input on the command line or in the configuration: nothing was sent. */
export class UsageError extends Error {
  readonly exitCode: number = EXIT.USAGE;
}

/** No control plane of the list answered. */
export class UnreachableError extends Error {
  readonly exitCode: number = EXIT.UNREACHABLE;
}

const WHAT: Record<number, string> = {
  400: 'invalid request',
  401: 'not authenticated',
  403: 'forbidden',
  404: 'not found',
  406: 'not acceptable',
  409: 'conflict',
  413: 'too large',
  415: 'unsupported media type',
  500: 'server error',
  503: 'unavailable',
};

/** The control plane answered with an error. */
export class ApiError extends Error {
  readonly exitCode: number;
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
    readonly details?: unknown,
  ) {
    super(`${WHAT[status] ?? `HTTP ${status}`} (${code}): ${apiMessage}`);
    this.exitCode = status === 404 ? EXIT.NOT_FOUND : status === 401 || status === 403 ? EXIT.FORBIDDEN : EXIT.FAILED;
  }
}

/** A message as the CLI prints it: `arbiter: <message>`. */
const prefixed = (message: string) => (message.startsWith('arbiter: ') ? message : `arbiter: ${message}`);

/** The one line printed for an error, and the exit code. Errors that are no Error (a bug) are rethrown by the caller. */
export function describe(err: Error): { line: string; exitCode: number } {
  let exitCode: number = (err as { exitCode?: number }).exitCode ?? EXIT.FAILED;
  if (err instanceof CredentialsError) exitCode = EXIT.USAGE;
  // A framework (an example) whose control plane never answered is unreachable too (the SDK's UNREACHABLE).
  else if ((err as { code?: unknown }).code === 'UNREACHABLE') exitCode = EXIT.UNREACHABLE;
  return { line: prefixed(err.message).replace(/\s*\n\s*/g, ' '), exitCode };
}

/**
 * A command's refusal or failure it handles itself (a wrong setting, a port in use, a server that
 * did not start): one line on stderr as every other error has it, `arbiter: <what went wrong>`,
 * and the exit code.
 */
export function refuse(message: string, exitCode: number): void {
  console.error(prefixed(message));
  process.exitCode = exitCode;
}
