'use client';
/**
 * Live updates: one EventSource on /api/events for the whole page (see app/api/events). Views
 * subscribe to event types; `useLiveInvalidate` refetches queries when their data may have
 * changed, at most once a second however busy the cluster. A lost connection is shown in the
 * top bar and retried with backoff; once back, every query is refetched (events were missed).
 */
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import type { OperatorEvents } from '@arbiter/contracts';

export type EventType = keyof OperatorEvents;
export type ClusterEvent = { [K in EventType]: { type: K; data: Parameters<OperatorEvents[K]>[0] } }[EventType];
export type LiveStatus = 'connecting' | 'live' | 'reconnecting';
type Listener = (events: ClusterEvent[]) => void;

const LiveContext = createContext<{ status: LiveStatus; subscribe: (l: Listener) => () => void } | null>(null);

export function LiveProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const listeners = useRef(new Set<Listener>());
  const queryClient = useQueryClient();

  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let wasLive = false;
    const connect = () => {
      source = new EventSource('/api/events');
      source.addEventListener('ready', () => {
        attempt = 0;
        setStatus('live');
        if (wasLive) void queryClient.invalidateQueries();
        wasLive = true;
      });
      source.addEventListener('overflow', () => void queryClient.invalidateQueries());
      source.onmessage = (m) => {
        const batch = JSON.parse(m.data as string) as ClusterEvent[];
        for (const l of listeners.current) l(batch);
      };
      source.onerror = () => {
        setStatus('reconnecting');
        // The browser retries a dropped stream by itself; a refused one (401, 502) it gives up on.
        if (source?.readyState === EventSource.CLOSED) {
          source.close();
          retry = setTimeout(connect, Math.min(1000 * 2 ** attempt++, 10_000));
        }
      };
    };
    connect();
    return () => {
      clearTimeout(retry);
      source?.close();
    };
  }, [queryClient]);

  const value = useRef({ subscribe: (l: Listener) => (listeners.current.add(l), () => void listeners.current.delete(l)) }).current;
  return <LiveContext.Provider value={{ status, subscribe: value.subscribe }}>{children}</LiveContext.Provider>;
}

export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext)?.status ?? 'connecting';
}

/** Calls `handler` with each batch's events of the given types. */
export function useLiveEvents(types: EventType[], handler: (events: ClusterEvent[]) => void): void {
  const ctx = useContext(LiveContext);
  const latest = useRef(handler);
  latest.current = handler;
  const key = types.join(',');
  useEffect(() => {
    if (!ctx) return;
    const wanted = new Set(key.split(','));
    return ctx.subscribe((batch) => {
      const mine = batch.filter((e) => wanted.has(e.type));
      if (mine.length) latest.current(mine);
    });
  }, [ctx, key]);
}

/** Refetches the queries under `keys` after events of the given types (at most once per `everyMs`). */
export function useLiveInvalidate(types: EventType[], keys: QueryKey[], everyMs = 1000): void {
  const queryClient = useQueryClient();
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  const keysRef = useRef(keys);
  keysRef.current = keys;
  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );
  useLiveEvents(types, () => {
    if (pending.current) return;
    const wait = Math.max(0, last.current + everyMs - Date.now());
    pending.current = setTimeout(() => {
      pending.current = null;
      last.current = Date.now();
      for (const key of keysRef.current) void queryClient.invalidateQueries({ queryKey: key });
    }, wait);
  });
}
