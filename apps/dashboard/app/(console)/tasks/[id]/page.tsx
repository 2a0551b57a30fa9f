import type { Metadata } from 'next';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { TaskDetailView } from '@/views/tasks';

export const metadata: Metadata = { title: 'Task' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = decodeURIComponent((await params).id);
  return (
    <Prefetch queries={(q) => firstLoad.task(q, id)}>
      <TaskDetailView id={id} />
    </Prefetch>
  );
}
