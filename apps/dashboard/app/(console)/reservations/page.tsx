import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { ReservationsView } from '@/views/reservations';

export const metadata: Metadata = { title: 'Reservations' };

export default function Page() {
  return (
    <Prefetch queries={firstLoad.reservations}>
      <Suspense fallback={<RouteLoading />}>
        <ReservationsView />
      </Suspense>
    </Prefetch>
  );
}
