/**
 * The REST API from the browser: typed by the contracts generated from the OpenAPI document,
 * sent to this dashboard's /api/v1 (which adds the session's token; see app/api/v1). A failed
 * call throws ApiError with the API's own code and message; a call without a valid session
 * sends the operator to the sign-in page.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '@arbiter/contracts';

export type Schemas = components['schemas'];

export const api = createClient<paths>({ baseUrl: '' });

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Validation problems by field path (e.g. `quotas.0.guarantees`), from the API's details. */
  fieldErrors(): Record<string, string> {
    const errors = (this.details?.errors ?? []) as Array<{ field?: string; problems?: string[] }>;
    return Object.fromEntries(errors.flatMap((e) => (e.field ? [[e.field, (e.problems ?? []).join('; ')]] : [])));
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a call, or an ApiError with what the API said. */
export async function call<T>(request: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await request;
  } catch (err) {
    throw new ApiError(0, 'NETWORK_ERROR', `the dashboard server did not answer (${err instanceof Error ? err.message : String(err)})`);
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const body = (error && typeof error === 'object' ? error : {}) as {
    code?: string;
    message?: string;
    details?: Record<string, unknown> | null;
  };
  if (response.status === 401 && typeof window !== 'undefined' && !window.location.pathname.startsWith('/login')) {
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  throw new ApiError(
    response.status,
    body.code ?? `HTTP_${response.status}`,
    body.message ?? (typeof error === 'string' && error ? error : response.statusText || 'request failed'),
    body.details ?? null,
  );
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The API's complaint about one form field: a validation problem naming the field (or a field
 * under it), or an error whose code belongs to that field.
 */
export function fieldError(err: unknown, field: string, codes: string[] = []): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (codes.includes(err.code)) return err.message;
  const match = Object.entries(err.fieldErrors()).find(([f]) => f === field || f.startsWith(`${field}.`) || f.endsWith(`.${field}`));
  return match ? match[1] : undefined;
}

/** An error that no field claims, for the form as a whole. */
export function formError(err: unknown, claimed: Array<string | undefined>): unknown {
  return err && !claimed.some(Boolean) ? err : null;
}
