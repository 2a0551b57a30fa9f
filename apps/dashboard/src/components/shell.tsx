'use client';
/** The frame of every page: navigation, the live connection's state, the operator, sign-out. */
import { Link, NavigationProgress } from '@/lib/navigation';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { useLiveStatus } from '@/lib/live';

export const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/agents', label: 'Agents' },
  { href: '/roles', label: 'Roles' },
  { href: '/reservations', label: 'Reservations' },
  { href: '/volumes', label: 'Volumes' },
  { href: '/maintenance', label: 'Maintenance' },
  { href: '/frameworks', label: 'Frameworks' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/allocations', label: 'Allocation history' },
  { href: '/audit', label: 'Audit log' },
  { href: '/access', label: 'Access' },
];

const STATUS_TEXT = { live: 'Live', connecting: 'Connecting…', reconnecting: 'Connection lost, reconnecting…' };

export function Shell({ principal, problem, children }: { principal: string | null; problem: string | null; children: ReactNode }) {
  const path = usePathname();
  const status = useLiveStatus();
  const signOut = async () => {
    await fetch('/api/session', { method: 'DELETE' });
    window.location.assign('/login');
  };
  return (
    <div className="shell">
      <NavigationProgress />
      <aside className="sidebar">
        <Link href="/" className="brand">
          <span className="brand-mark">A</span> Arbiter
        </Link>
        <nav className="nav" aria-label="Main">
          {NAV.map((item) => {
            const current = item.href === '/' ? path === '/' : path === item.href || path.startsWith(`${item.href}/`);
            return (
              <Link key={item.href} href={item.href} aria-current={current ? 'page' : undefined}>
                {item.label}
              </Link>
            );
          })}
        </nav>
      </aside>
      <div className="main">
        <header className="topbar">
          <span className="live" data-status={status} role="status" aria-live="polite" data-testid="live-status">
            <span className="dot" aria-hidden="true" />
            {STATUS_TEXT[status]}
          </span>
          {principal ? <span className="muted">Signed in as {principal}</span> : null}
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </header>
        <main className="content" id="main">
          {problem ? (
            <div className="message warn" role="alert">
              The control plane did not answer as expected: {problem}
            </div>
          ) : null}
          {children}
        </main>
      </div>
    </div>
  );
}
