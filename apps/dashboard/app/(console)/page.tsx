import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { OverviewView } from '@/views/overview';

export const metadata: Metadata = { title: 'Overview' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.overview}>
      <Suspense fallback={<RouteLoading />}>
        <OverviewView />
      </Suspense>
    </Prefetch>
  );
}
