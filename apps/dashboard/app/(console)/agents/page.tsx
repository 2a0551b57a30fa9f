import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { AgentsView } from '@/views/agents';

export const metadata: Metadata = { title: 'Agents' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.agents}>
      <Suspense fallback={<RouteLoading />}>
        <AgentsView />
      </Suspense>
    </Prefetch>
  );
}
