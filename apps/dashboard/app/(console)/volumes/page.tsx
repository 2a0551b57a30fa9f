import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { VolumesView } from '@/views/volumes';

export const metadata: Metadata = { title: 'Volumes' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.volumes}>
      <Suspense fallback={<RouteLoading />}>
        <VolumesView />
      </Suspense>
    </Prefetch>
  );
}
