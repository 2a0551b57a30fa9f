import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { RolesView } from '@/views/roles';

export const metadata: Metadata = { title: 'Roles' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.roles}>
      <Suspense fallback={<RouteLoading />}>
        <RolesView />
      </Suspense>
    </Prefetch>
  );
}
