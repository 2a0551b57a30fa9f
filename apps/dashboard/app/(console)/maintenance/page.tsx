import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { MaintenanceView } from '@/views/maintenance';

export const metadata: Metadata = { title: 'Maintenance' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.maintenance}>
      <Suspense fallback={<RouteLoading />}>
        <MaintenanceView />
      </Suspense>
    </Prefetch>
  );
}
