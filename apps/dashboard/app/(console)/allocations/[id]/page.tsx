import type { Metadata } from 'next';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { CycleDetailView } from '@/views/allocations';

export const metadata: Metadata = { title: 'Allocation cycle' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = decodeURIComponent((await params).id);
  return (
    <Prefetch queries={(q) => firstLoad.cycle(q, id)}>
      <CycleDetailView id={id} />
    </Prefetch>
  );
}
