'use client';
import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback } from 'react';
import { useNavigate } from './navigation';

/** Filters kept in the page's query string, so that they survive a reload and can be linked to. */
export function useUrlState<K extends string>(names: readonly K[]): [Record<K, string>, (changes: Partial<Record<K, string>>) => void] {
  const params = useSearchParams();
  const navigate = useNavigate();
  const path = usePathname();
  const values = Object.fromEntries(names.map((n) => [n, params.get(n) ?? ''])) as Record<K, string>;
  const set = useCallback(
    (changes: Partial<Record<K, string>>) => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries<string | undefined>(changes)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      const qs = next.toString();
      navigate(qs ? `${path}?${qs}` : path, { replace: true });
    },
    [params, navigate, path],
  );
  return [values, set];
}
