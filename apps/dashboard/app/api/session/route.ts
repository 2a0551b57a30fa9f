/**
 * Sign-in and sign-out. POST {token}: the token is checked against the control plane
 * (GET /api/v1/whoami) and, when valid, exchanged for a session of the same principal
 * (POST /api/v1/sessions, at most 12 hours); only that session's token is kept, in the session
 * cookie. DELETE ends the session on the control plane (its token stops working everywhere at
 * once) and forgets the cookie. Both refuse another origin's pages.
 */
import { cookies } from 'next/headers';
import { crossOriginRefusal, errorResponse, SESSION_COOKIE, sessionToken, upstream } from '@/lib/server';

const passOn = (r: Response) =>
  new Response(r.body, { status: r.status, headers: { 'content-type': r.headers.get('content-type') ?? 'application/json' } });

export async function POST(request: Request): Promise<Response> {
  const refused = crossOriginRefusal(request);
  if (refused) return refused;
  let token: unknown;
  try {
    token = ((await request.json()) as { token?: unknown }).token;
  } catch {
    return errorResponse(400, 'MALFORMED_JSON', 'send {"token": "..."} as JSON');
  }
  if (typeof token !== 'string' || !token.trim()) return errorResponse(400, 'VALIDATION_FAILED', 'enter an API token');
  const typed = token.trim();
  const check = await upstream('/api/v1/whoami', { token: typed });
  if (!check.ok) return passOn(check);
  const who = (await check.json()) as { principal: string; kind?: string };
  if (who.kind === 'FRAMEWORK' || who.kind === 'AGENT')
    return errorResponse(
      403,
      'FORBIDDEN',
      `this token belongs to ${who.kind.toLowerCase()} principal '${who.principal}'; sign in with an admin, operator or viewer token`,
    );
  const started = await upstream('/api/v1/sessions', { method: 'POST', token: typed });
  if (!started.ok) return passOn(started);
  const session = (await started.json()) as { token: string; expiresAt: string };
  (await cookies()).set(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'strict',
    // Secure under TLS, also when a proxy terminates it.
    secure: new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https',
    path: '/',
    expires: new Date(session.expiresAt),
  });
  return Response.json(who);
}

export async function GET(): Promise<Response> {
  const token = await sessionToken();
  if (!token) return errorResponse(401, 'AUTH_TOKEN_MISSING', 'not signed in');
  return passOn(await upstream('/api/v1/whoami', { token }));
}

export async function DELETE(request: Request): Promise<Response> {
  const refused = crossOriginRefusal(request);
  if (refused) return refused;
  const token = await sessionToken();
  const ended = token ? await upstream('/api/v1/sessions/current', { method: 'DELETE', token }) : undefined;
  // The cookie goes whatever the control plane said; a session it could not end is reported
  // (it stops working when it expires). One it refuses already (401) or that is no session (409) is over.
  (await cookies()).delete(SESSION_COOKIE);
  if (ended && !ended.ok && ended.status !== 401 && ended.status !== 409) return passOn(ended);
  return new Response(null, { status: 204 });
}
