'use client';
/**
 * Times as the operator reads them: in the browser's time zone, or "5 s ago". The server
 * cannot know the zone (or the moment the page is read), so it renders the UTC time and the
 * browser replaces it as soon as the page is live, without a hydration mismatch.
 */
import { useSyncExternalStore } from 'react';
import { ago, dateTime, time } from '@/lib/format';

const never = () => () => undefined;

/** False while the server's HTML is being hydrated, true in the browser from then on. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}

export function When({ at, as = 'datetime' }: { at: string | null | undefined; as?: 'datetime' | 'time' | 'ago' }) {
  const hydrated = useHydrated();
  if (!at) return <>—</>;
  const utc = `${at.replace('T', ' ').slice(0, 19)} UTC`;
  const text = !hydrated ? utc : as === 'ago' ? ago(at) : as === 'time' ? time(at) : dateTime(at);
  return (
    <time dateTime={at} title={hydrated ? dateTime(at) : utc} className="nowrap">
      {text}
    </time>
  );
}
