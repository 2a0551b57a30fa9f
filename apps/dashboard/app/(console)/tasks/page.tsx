import type { Metadata } from 'next';
import { Suspense } from 'react';
import { RouteLoading } from '@/components/route-states';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { TasksView } from '@/views/tasks';

export const metadata: Metadata = { title: 'Tasks' };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = await searchParams;
  return (
    <Prefetch queries={(q) => firstLoad.tasks(q, search)}>
      <Suspense fallback={<RouteLoading />}>
        <TasksView />
      </Suspense>
    </Prefetch>
  );
}
