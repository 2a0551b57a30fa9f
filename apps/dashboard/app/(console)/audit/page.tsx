import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { AuditView } from '@/views/audit';

export const metadata: Metadata = { title: 'Audit log' };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = await searchParams;
  return (
    <Prefetch queries={(q) => firstLoad.audit(q, search)}>
      <Suspense fallback={<RouteLoading />}>
        <AuditView />
      </Suspense>
    </Prefetch>
  );
}
