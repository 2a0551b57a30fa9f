import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { AllocationsView } from '@/views/allocations';

export const metadata: Metadata = { title: 'Allocation history' };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = await searchParams;
  const now = Date.now();
  return (
    <Prefetch queries={(q) => firstLoad.allocations(q, search, now)}>
      <Suspense fallback={<RouteLoading />}>
        <AllocationsView now={now} />
      </Suspense>
    </Prefetch>
  );
}
