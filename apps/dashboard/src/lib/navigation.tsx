'use client';
/**
 * Navigation with a visible pending state. Pages render on the server with their data (a first
 * load arrives complete, in one piece); while a later navigation waits for the next page, the
 * current one stays and a progress bar runs along the top of the window. Every internal link
 * (`Link`) and programmatic navigation (`useNavigate`) reports its pending state here.
 */
import NextLink, { useLinkStatus } from 'next/link';
import { useRouter } from 'next/navigation';
import { type ComponentProps, useCallback, useEffect, useId, useSyncExternalStore, useTransition } from 'react';

const pending = new Set<string>();
const listeners = new Set<() => void>();

function report(id: string, isPending: boolean): void {
  if (isPending === pending.has(id)) return;
  if (isPending) pending.add(id);
  else pending.delete(id);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether some navigation is under way. */
export function useNavigationPending(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => pending.size > 0,
    () => false,
  );
}

/** Publishes one source's pending state while the component is mounted. */
function useReportPending(isPending: boolean): void {
  const id = useId();
  useEffect(() => {
    report(id, isPending);
    return () => report(id, false);
  }, [id, isPending]);
}

function LinkPending() {
  useReportPending(useLinkStatus().pending);
  return null;
}

/** An internal link: not prefetched (pages are live data), with its pending state reported. */
export function Link({ children, prefetch = false, ...props }: ComponentProps<typeof NextLink>) {
  return (
    <NextLink prefetch={prefetch} {...props}>
      {children}
      <LinkPending />
    </NextLink>
  );
}

/** Navigates as a transition (the current page stays until the next is ready), reporting it as pending. */
export function useNavigate(): (href: string, options?: { replace?: boolean }) => void {
  const router = useRouter();
  const [isPending, startTransition] = useTransition();
  useReportPending(isPending);
  return useCallback(
    (href, options) =>
      startTransition(() => {
        if (options?.replace) router.replace(href, { scroll: false });
        else router.push(href);
      }),
    [router],
  );
}

/** The bar along the top of the window while a navigation is pending. */
export function NavigationProgress() {
  const isPending = useNavigationPending();
  return (
    <div
      className={isPending ? 'nav-progress active' : 'nav-progress'}
      role="progressbar"
      aria-label="Loading the page"
      aria-hidden={!isPending}
      data-pending={isPending || undefined}
    />
  );
}
