'use client';
/** What a page shows while a part of it is still rendering, and when rendering fails (error.tsx). */
import { useEffect } from 'react';
import { ErrorPanel, Loading } from './ui';

export function RouteLoading() {
  return (
    <div className="panel">
      <Loading rows={6} label="Loading page" />
    </div>
  );
}

export function RouteError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => console.error(error), [error]);
  return <ErrorPanel error={error} onRetry={retry} title="This page failed" />;
}
