/**
 * Pages need a session: without the session cookie a page request goes to sign-in, which
 * brings the operator back to the page afterwards. (Whether the token is still accepted is
 * checked by the console layout; /api routes answer 401 themselves.)
 */
import { type NextRequest, NextResponse } from 'next/server';

export function proxy(request: NextRequest) {
  if (request.cookies.get('arbiter_session')?.value) return NextResponse.next();
  const login = new URL('/login', request.url);
  const next = request.nextUrl.pathname + request.nextUrl.search;
  if (next !== '/') login.searchParams.set('next', next);
  return NextResponse.redirect(login);
}

export const config = {
  matcher: ['/((?!login|api/|_next/|icon.svg|favicon.ico).*)'],
};
