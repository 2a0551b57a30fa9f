/**
 * Sign-in and sign-out. POST {token}: the token is checked against the control plane
 * (GET /api/v1/whoami) and, when valid, kept in the session cookie; DELETE forgets it.
 */
import { cookies } from 'next/headers';
import { errorResponse, SESSION_COOKIE, sessionToken, upstream } from '@/lib/server';

const WEEK = 7 * 24 * 3600;

export async function POST(request: Request): Promise<Response> {
  let token: unknown;
  try {
    token = ((await request.json()) as { token?: unknown }).token;
  } catch {
    return errorResponse(400, 'MALFORMED_JSON', 'send {"token": "..."} as JSON');
  }
  if (typeof token !== 'string' || !token.trim()) return errorResponse(400, 'VALIDATION_FAILED', 'enter an API token');
  token = token.trim();
  const check = await upstream('/api/v1/whoami', { token: token as string });
  if (!check.ok)
    return new Response(check.body, {
      status: check.status,
      headers: { 'content-type': check.headers.get('content-type') ?? 'application/json' },
    });
  const who = (await check.json()) as { principal: string; kind?: string };
  if (who.kind === 'FRAMEWORK' || who.kind === 'AGENT')
    return errorResponse(
      403,
      'FORBIDDEN',
      `this token belongs to ${who.kind.toLowerCase()} principal '${who.principal}'; sign in with an admin, operator or viewer token`,
    );
  (await cookies()).set(SESSION_COOKIE, token as string, {
    httpOnly: true,
    sameSite: 'strict',
    // Secure under TLS, also when a proxy terminates it.
    secure: new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https',
    path: '/',
    maxAge: WEEK,
  });
  return Response.json(who);
}

export async function GET(): Promise<Response> {
  const token = await sessionToken();
  if (!token) return errorResponse(401, 'AUTH_TOKEN_MISSING', 'not signed in');
  const r = await upstream('/api/v1/whoami', { token });
  return new Response(r.body, { status: r.status, headers: { 'content-type': r.headers.get('content-type') ?? 'application/json' } });
}

export async function DELETE(): Promise<Response> {
  (await cookies()).delete(SESSION_COOKIE);
  return new Response(null, { status: 204 });
}
