/**
 * The REST API's error codes and their HTTP statuses, from the one registry of codes in
 * libs/contracts (ERROR_CODES). Each module declares its codes (an enum in its `*.errors.ts`)
 * and registers them with registerErrorCodes, which fails to compile for a code the registry
 * lacks or gives no HTTP status; assertErrorCodesRegistered, run when the application is built,
 * fails with the codes' names when the registry has a REST code that no module registered.
 * This folder names no module: they register with it.
 */
import { ERROR_CODES, type RestErrorCode } from '@arbiter/contracts';

export type ErrorCode = RestErrorCode;

/** The registry's REST codes, in its order (that of the OpenAPI document's ErrorCode enum). */
const REST_CODES = (Object.keys(ERROR_CODES) as Array<keyof typeof ERROR_CODES>).filter(
  (code): code is ErrorCode => ERROR_CODES[code].status !== null,
);

/** Each registered code and the module that registered it. */
const owners = new Map<ErrorCode, string>();

/** A module's codes (its enum); `module` names it in messages. Returns the codes. */
export function registerErrorCodes<Codes extends Record<string, ErrorCode>>(module: string, codes: Codes): Codes {
  for (const code of Object.values(codes)) {
    const owner = owners.get(code);
    if (owner !== undefined && owner !== module) throw new Error(`error code ${code} is registered by both ${owner} and ${module}`);
    owners.set(code, module);
  }
  return codes;
}

/** The registry's REST codes that no module registered (empty once every module is loaded). */
export function unregisteredErrorCodes(): ErrorCode[] {
  return REST_CODES.filter((code) => !owners.has(code));
}

export function assertErrorCodesRegistered(): void {
  const missing = unregisteredErrorCodes();
  if (missing.length) {
    throw new Error(
      `ERROR_CODES (libs/contracts/src/errors.ts) gives ${missing.join(', ')} an HTTP status, but no module registers ` +
        "them: add each to its module's *.errors.ts enum (registered with registerErrorCodes), or drop it from the registry",
    );
  }
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** Every REST code with its status (for documentation and the OpenAPI error schema). */
export function allErrorCodes(): Array<{ code: ErrorCode; status: number }> {
  return REST_CODES.map((code) => ({ code, status: httpStatusOf(code) }));
}
