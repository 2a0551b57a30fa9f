import type { Metadata } from 'next';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { FrameworkDetailView } from '@/views/frameworks';

export const metadata: Metadata = { title: 'Framework' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = decodeURIComponent((await params).id);
  return (
    <Prefetch queries={(q) => firstLoad.framework(q, id)}>
      <FrameworkDetailView id={id} />
    </Prefetch>
  );
}
