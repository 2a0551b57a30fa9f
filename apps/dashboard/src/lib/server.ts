/**
 * Server-side only: where the control plane is and the operator's session. The session is a
 * short-lived token the control plane issued for this sign-in (POST /api/v1/sessions), never the
 * token the operator typed; it sits in an httpOnly, SameSite=Strict cookie: the browser's scripts
 * never see it, it never goes into a URL, every call to the control plane is made from this
 * server with it as the bearer token, and signing out revokes it.
 */
import { cookies } from 'next/headers';

/**
 * The control plane's replicas' base URLs (ARBITER_API_URL, else ARBITER_MASTER: one URL or a
 * comma-separated list; `arbiter start` sets it). Every replica serves the API.
 */
function apiUrls(): string[] {
  const list = (process.env.ARBITER_API_URL || process.env.ARBITER_MASTER || 'http://127.0.0.1:8080')
    .split(',')
    .map((u) => u.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  return list.length ? list : ['http://127.0.0.1:8080'];
}

/** The replica that answered last (the first of the list until one fails). */
let preferred = 0;

/** The control plane's base URL to call now. */
export function apiUrl(): string {
  const urls = apiUrls();
  return urls[preferred % urls.length];
}

export const SESSION_COOKIE = 'arbiter_session';

export async function sessionToken(): Promise<string | undefined> {
  return (await cookies()).get(SESSION_COOKIE)?.value || undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The origins this dashboard is served at: DASHBOARD_PUBLIC_ORIGIN (comma-separated) when set,
 * else the one the request itself names (its Host, or what a proxy in front says it forwarded).
 */
function ownOrigins(request: Request): string[] {
  const configured = (process.env.DASHBOARD_PUBLIC_ORIGIN ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  if (configured.length) return configured;
  const url = new URL(request.url);
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0].trim() || url.protocol.replace(/:$/, '');
  const host = request.headers.get('x-forwarded-host')?.split(',')[0].trim() || request.headers.get('host') || url.host;
  return [`${proto}://${host}`];
}

/**
 * Refuses a state-changing request that a page of another origin made with the operator's
 * cookie (a page on another port of the same host is same-site, so SameSite alone lets it
 * through). Browsers name the page's origin in `Origin` (and `Sec-Fetch-Site`) on every such
 * request; a client without either is not a browser and carries no operator's cookie by accident.
 * Returns the refusal, or null when the request may go on.
 */
export function crossOriginRefusal(request: Request): Response | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (origin === null || origin === 'null') {
    if (origin === null && (site === null || site === 'same-origin' || site === 'none')) return null;
  } else if (ownOrigins(request).includes(origin)) return null;
  return errorResponse(
    403,
    'ORIGIN_REFUSED',
    `a ${request.method} from ${origin ?? `a ${site ?? 'hidden'} page`} is refused: only this dashboard's own pages may change the cluster through it`,
  );
}

/** The error body the control plane uses, for failures this server answers itself. */
export function errorResponse(statusCode: number, code: string, message: string): Response {
  return Response.json({ statusCode, code, message, details: null }, { status: statusCode });
}

/** Calls the control plane; a network failure becomes a 502 in the API's error format. */
export async function upstream(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  const urls = apiUrls();
  // The replica that answered last, then the others: a replica that is down costs one failed connection.
  for (let i = 0; i < urls.length; i++) {
    const at = (preferred + i) % urls.length;
    try {
      const res = await fetch(`${urls[at]}${path}`, { ...rest, headers, cache: 'no-store', redirect: 'manual' });
      preferred = at;
      return res;
    } catch {
      // the next replica
    }
  }
  return errorResponse(
    502,
    'CONTROL_PLANE_UNREACHABLE',
    `the dashboard cannot reach the control plane at ${urls.join(' or ')}; is it running?`,
  );
}

/** How long the principal behind a token is remembered before the control plane is asked again. */
const WHOAMI_TTL_MS = 30_000;
const principals = new Map<string, { principal: string; at: number }>();

/**
 * The principal behind the session's token, as the console layout shows it: asked of the
 * control plane at most every 30 s per token (every API call is still checked by the control
 * plane itself). `null` principal: the token is refused; an error: the control plane did not answer.
 */
export async function whoAmI(token: string): Promise<{ principal: string | null; problem: string | null }> {
  const known = principals.get(token);
  if (known && Date.now() - known.at < WHOAMI_TTL_MS) return { principal: known.principal, problem: null };
  const r = await upstream('/api/v1/whoami', { token });
  if (r.status === 401) {
    principals.delete(token);
    return { principal: null, problem: null };
  }
  if (!r.ok)
    return {
      principal: null,
      problem: ((await r.json().catch(() => null)) as { message?: string } | null)?.message ?? `the control plane answered ${r.status}`,
    };
  const { principal } = (await r.json()) as { principal: string };
  if (principals.size > 1000) principals.clear();
  principals.set(token, { principal, at: Date.now() });
  return { principal, problem: null };
}
