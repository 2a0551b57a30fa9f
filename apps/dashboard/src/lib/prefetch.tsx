/**
 * Server-side first data: a page names the queries its view makes first; they are fetched here,
 * straight from the control plane with the session's token, and handed to the browser with the
 * HTML (TanStack Query's hydration), so a page shows its data on first paint instead of after
 * its scripts load and ask for it. A query that fails here is simply asked again by the
 * browser, which then shows the API's error as it is.
 */
import { dehydrate, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import createClient from 'openapi-fetch';
import type { ReactNode } from 'react';
import type { paths } from '@arbiter/contracts';
import { makeQueries, type Queries } from './queries';
import { apiUrl, sessionToken } from './server';

/** The options of any query the views make (see queries.ts). */
type Options = ReturnType<Queries[keyof Queries]>;
type PlainQuery = Parameters<QueryClient['query']>[0];

export async function Prefetch({ queries, children }: { queries: (q: Queries) => Options[]; children: ReactNode }) {
  const token = await sessionToken();
  const client = createClient<paths>({ baseUrl: apiUrl(), headers: token ? { authorization: `Bearer ${token}` } : {} });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // A failed query is left to the browser (see above).
  const noop = () => undefined;
  await Promise.all(
    queries(makeQueries(client)).map((o) =>
      // Fetched only to fill the cache: the data's type does not matter here (and TypeScript cannot
      // infer one call's type parameters from the union of every query's options).
      'initialPageParam' in o ? queryClient.infiniteQuery(o).catch(noop) : queryClient.query(o as PlainQuery).catch(noop),
    ),
  );
  return <HydrationBoundary state={dehydrate(queryClient)}>{children}</HydrationBoundary>;
}
