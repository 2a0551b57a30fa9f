'use client';
import { useRouter, useSearchParams } from 'next/navigation';
import { type SubmitEvent, useState } from 'react';
import { Field } from '@/components/ui';

/** Sign-in with an API token; the token goes in the request body, never in a URL. */
export function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(
    params.get('expired') ? 'Your session ended: the token is no longer accepted. Sign in again.' : undefined,
  );
  const [busy, setBusy] = useState(false);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await fetch('/api/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      if (!r.ok) {
        const body = (await r.json().catch(() => ({}))) as { message?: string; code?: string };
        setError(`${body.message ?? r.statusText}${body.code ? ` (${body.code})` : ''}`);
        return;
      }
      const next = params.get('next');
      router.replace(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
      router.refresh();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel" onSubmit={(e) => void submit(e)}>
      <div className="brand">
        <span className="brand-mark">A</span> Arbiter
      </div>
      <h1>Sign in</h1>
      <p className="muted" style={{ margin: 0 }}>
        Use an API token: the admin token printed when the control plane first started, or the value of ARBITER_ADMIN_TOKEN.
      </p>
      <Field label="API token" error={error}>
        {(p) => (
          <input
            {...p}
            type="password"
            name="token"
            autoComplete="current-password"
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            autoFocus
          />
        )}
      </Field>
      <button type="submit" className="primary" disabled={busy || !token.trim()}>
        {busy ? 'Checking…' : 'Sign in'}
      </button>
    </form>
  );
}
