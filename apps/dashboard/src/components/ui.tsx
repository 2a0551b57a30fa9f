'use client';
/** Small building blocks shared by every page. */
import { type ReactNode, useId } from 'react';
import { ApiError } from '@/lib/api';

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p>{description}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </div>
  );
}

export function Panel({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`panel ${className ?? ''}`} aria-label={typeof title === 'string' ? title : undefined}>
      {title || actions ? (
        <div className="panel-head">
          {title ? <h2>{title}</h2> : <span />}
          {actions ? <div className="actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'none';

export function Badge({ tone = 'none', children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** What the API said, as it said it, with a way to try again. */
export function ErrorPanel({ error, onRetry, title = 'Could not load this' }: { error: unknown; onRetry?: () => void; title?: string }) {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div className="message bad" role="alert">
      <strong>{title}:</strong> {message}
      {code ? <span className="mono"> ({code})</span> : null}
      {onRetry ? (
        <div style={{ marginTop: 8 }}>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** An error from an action, shown next to the action. */
export function ActionError({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
  return (
    <div className="message bad" role="alert">
      {message}
      {error instanceof ApiError ? <span className="mono"> ({error.code})</span> : null}
    </div>
  );
}

export function Loading({ rows = 4, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <div aria-busy="true" aria-label={label} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ height: 22, width: `${90 - i * 7}%` }} />
      ))}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

export function Stat({ label, value, tone }: { label: string; value: ReactNode; tone?: Tone }) {
  return (
    <div className="stat">
      <span className="value" style={tone && tone !== 'none' ? { color: `var(--${tone})` } : undefined}>
        {value}
      </span>
      <span className="label">{label}</span>
    </div>
  );
}

/** A labelled form control with its hint and the API's error for it. */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: ReactNode;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {error ? (
        <span className="error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A list's total as counted: "10,050+" when the control plane stopped counting. */
export function formatTotal(page: { total: number; totalCapped?: boolean }): string {
  return `${page.total.toLocaleString('en-US')}${page.totalCapped ? '+' : ''}`;
}

export function Pager({
  total,
  capped = false,
  limit,
  offset,
  onChange,
}: {
  total: number;
  capped?: boolean;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
}) {
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pager" aria-label="Pages">
      <span className="muted">
        {total === 0 ? 'none' : `${offset + 1}–${Math.min(offset + limit, total)} of ${formatTotal({ total, totalCapped: capped })}`}
      </span>
      <button type="button" className="small" disabled={page <= 1} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" className="small" disabled={page >= pages && !capped} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

export function Switch({
  checked,
  onChange,
  label,
  disabled,
}: {
  checked: boolean;
  onChange: (next: boolean) => void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      role="switch"
      className="switch"
      aria-checked={checked}
      aria-label={label}
      title={label}
      disabled={disabled}
      onClick={() => onChange(!checked)}
    />
  );
}
