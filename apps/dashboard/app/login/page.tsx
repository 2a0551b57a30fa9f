import type { Metadata } from 'next';
import { Suspense } from 'react';
import { LoginForm } from '@/views/login';

export const metadata: Metadata = { title: 'Sign in' };

export default function LoginPage() {
  return (
    <main className="login">
      <Suspense>
        <LoginForm />
      </Suspense>
    </main>
  );
}
