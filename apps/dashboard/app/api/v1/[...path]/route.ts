/**
 * The REST API, as the browser reaches it: every /api/v1 call goes to the control plane with
 * the session's token as the bearer token. Status, body and headers come back unchanged, so
 * the API's errors reach the page as they are. Only /api/v1 paths of the configured control
 * plane are reachable through here. A state-changing call from another origin's page is refused
 * before it is sent (`crossOriginRefusal`).
 */
import { crossOriginRefusal, errorResponse, sessionToken, upstream } from '@/lib/server';

const PASSED_BACK = ['content-type', 'content-disposition', 'x-request-id'];

async function forward(request: Request, context: { params: Promise<{ path: string[] }> }): Promise<Response> {
  const refused = crossOriginRefusal(request);
  if (refused) return refused;
  const token = await sessionToken();
  if (!token) return errorResponse(401, 'AUTH_TOKEN_MISSING', 'sign in to the dashboard first');
  const { path } = await context.params;
  const search = new URL(request.url).search;
  const headers: Record<string, string> = {};
  const type = request.headers.get('content-type');
  if (type) headers['content-type'] = type;
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  const r = await upstream(`/api/v1/${path.map(encodeURIComponent).join('/')}${search}`, { method: request.method, headers, body, token });
  const out = new Headers({ 'cache-control': 'no-store' });
  for (const h of PASSED_BACK) {
    const v = r.headers.get(h);
    if (v) out.set(h, v);
  }
  return new Response(r.status === 204 ? null : r.body, { status: r.status, headers: out });
}

export { forward as DELETE, forward as GET, forward as PATCH, forward as POST, forward as PUT };
