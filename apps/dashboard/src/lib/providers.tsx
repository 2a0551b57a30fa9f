'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { ApiError } from './api';
import { LiveProvider } from './live';
import { ToastProvider } from '@/components/toast';

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            refetchOnWindowFocus: false,
            // A refusal (4xx) will not change on a retry; an unreachable server might.
            retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
          },
        },
      }),
  );
  // Marks the page as live (hydrated): what the browser tests and the dashboard bench wait for.
  useEffect(() => {
    document.documentElement.dataset.live = 'true';
  }, []);
  return (
    <QueryClientProvider client={client}>
      <LiveProvider>
        <ToastProvider>{children}</ToastProvider>
      </LiveProvider>
    </QueryClientProvider>
  );
}
