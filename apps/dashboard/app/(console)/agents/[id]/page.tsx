import type { Metadata } from 'next';
import { firstLoad } from '@/lib/pages';
import { Prefetch } from '@/lib/prefetch';
import { AgentDetailView } from '@/views/agent-detail';

export const metadata: Metadata = { title: 'Agent' };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const id = decodeURIComponent((await params).id);
  return (
    <Prefetch queries={(q) => firstLoad.agent(q, id)}>
      <AgentDetailView id={id} />
    </Prefetch>
  );
}
