/**
 * Server-side first data: a page names the queries its view makes first; they are fetched here,
 * straight from the control plane with the session's token, and handed to the browser with the
 * HTML (TanStack Query's hydration), so a page shows its data on first paint instead of after
 * its scripts load and ask for it. A query that fails here is simply asked again by the
 * browser, which then shows the API's error as it is.
 */
import { dehydrate, type FetchInfiniteQueryOptions, type FetchQueryOptions, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import createClient from 'openapi-fetch';
import type { ReactNode } from 'react';
import type { paths } from '@arbiter/contracts';
import { makeQueries, type Queries } from './queries';
import { apiUrl, sessionToken } from './server';

type Options = FetchQueryOptions<any, any, any, any> | FetchInfiniteQueryOptions<any, any, any, any, any>;

export async function Prefetch({ queries, children }: { queries: (q: Queries) => Options[]; children: ReactNode }) {
  const token = await sessionToken();
  const client = createClient<paths>({ baseUrl: apiUrl(), headers: token ? { authorization: `Bearer ${token}` } : {} });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  await Promise.all(
    queries(makeQueries(client)).map((o) =>
      'initialPageParam' in o
        ? queryClient.prefetchInfiniteQuery(o as FetchInfiniteQueryOptions<any, any, any, any, any>)
        : queryClient.prefetchQuery(o as FetchQueryOptions<any, any, any, any>),
    ),
  );
  return <HydrationBoundary state={dehydrate(queryClient)}>{children}</HydrationBoundary>;
}
