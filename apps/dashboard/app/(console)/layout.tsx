import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Shell } from '@/components/shell';
import { Providers } from '@/lib/providers';
import { sessionToken, whoAmI } from '@/lib/server';

/** Every page but sign-in: needs a session whose token the control plane still accepts. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const token = await sessionToken();
  if (!token) redirect('/login');
  const { principal, problem } = await whoAmI(token);
  if (!principal && !problem) redirect('/login?expired=1');
  return (
    <Providers>
      <Shell principal={principal} problem={problem}>
        {children}
      </Shell>
    </Providers>
  );
}
