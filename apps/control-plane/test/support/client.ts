/**
 * How integration tests call the REST API: `typed` calls through openapi-fetch with the paths
 * and schemas generated from the OpenAPI document (what the dashboard uses), and `raw` requests
 * for what no typed client would send (malformed JSON, wrong content types, invalid values,
 * unknown paths), whose bodies are `unknown` until a test narrows them.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths, Schema } from '@arbiter/contracts';

export type ApiClient = Client<paths>;
export type ErrorBody = Schema<'ErrorDto'>;

/** What a raw request answered: the body parsed when it is JSON, its text otherwise. */
export interface RawResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface RawOptions {
  /** The bearer token; null sends none. Defaults to the client's token. */
  token?: string | null;
  contentType?: string;
  headers?: Record<string, string>;
}

/** What an openapi-fetch call resolves to, whatever its path. */
interface Outcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export function apiClient(baseUrl: string, token: string | null): ApiClient {
  return createClient<paths>({ baseUrl, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

/** Sends `body` as JSON, or as it is when it is a string, and parses a JSON answer. */
export async function rawRequest(
  baseUrl: string,
  defaultToken: string | null,
  method: string,
  url: string,
  body?: unknown,
  options: RawOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? defaultToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const res = await fetch(baseUrl + url, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed: unknown = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  return { status: res.status, body: parsed, headers: res.headers };
}

const describeOutcome = (status: number, body: unknown) => `HTTP ${status}: ${JSON.stringify(body)}`;

/** The data of a typed call that must answer `status` (200 unless told); fails the test otherwise. */
export async function ok<R extends Outcome>(call: Promise<R>, status = 200): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (response.status !== status) throw new Error(`expected HTTP ${status}, got ${describeOutcome(response.status, error ?? data)}`);
  return data as Exclude<R['data'], undefined>;
}

/** The API's error of a typed or raw call that must be refused with `status`. */
export async function refused(call: Promise<Outcome | RawResponse>, status: number): Promise<ErrorBody> {
  const { status: actual, body } = normalise(await call);
  if (actual !== status) throw new Error(`expected HTTP ${status}, got ${describeOutcome(actual, body)}`);
  return errorBody(body);
}

/** A typed or raw outcome as status and body. */
export function normalise(outcome: Outcome | RawResponse): { status: number; body: unknown } {
  if ('response' in outcome) return { status: outcome.response.status, body: outcome.error ?? outcome.data };
  return { status: outcome.status, body: outcome.body };
}

/** Narrows a body to the API's error shape ({ statusCode, code, message, details }), or fails. */
export function errorBody(body: unknown): ErrorBody {
  if (
    typeof body === 'object' &&
    body !== null &&
    'code' in body &&
    typeof body.code === 'string' &&
    'message' in body &&
    typeof body.message === 'string' &&
    'statusCode' in body &&
    typeof body.statusCode === 'number'
  ) {
    return body as ErrorBody;
  }
  throw new Error(`not an API error: ${JSON.stringify(body)}`);
}

/** Narrows a raw JSON body to an object, or fails. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new Error(`not a JSON object: ${JSON.stringify(body)}`);
}
