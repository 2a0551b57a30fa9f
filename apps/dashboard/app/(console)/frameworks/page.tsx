import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { FrameworksView } from '@/views/frameworks';

export const metadata: Metadata = { title: 'Frameworks' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.frameworks}>
      <Suspense fallback={<RouteLoading />}>
        <FrameworksView />
      </Suspense>
    </Prefetch>
  );
}
