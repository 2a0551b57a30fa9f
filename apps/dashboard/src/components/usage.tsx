/** How much of a resource is used, offered and reserved, as a bar with the figures under it. */
import { amount, percent } from '@/lib/format';

export function UsageBar({
  name,
  total,
  used = 0,
  offered = 0,
  reserved = 0,
  compact,
}: {
  name: string;
  total: number;
  used?: number;
  offered?: number;
  reserved?: number;
  compact?: boolean;
}) {
  const of = (n: number) => (total > 0 ? Math.min(100, (n / total) * 100) : 0);
  const title = `${name}: ${amount(name, used)} used, ${amount(name, offered)} offered, ${amount(name, reserved)} reserved of ${amount(name, total)}`;
  return (
    <div className="usage" title={title} role="img" aria-label={title}>
      <div className="bar">
        <span className="used" style={{ width: `${of(used)}%` }} />
        <span className="offered" style={{ width: `${Math.min(of(offered), 100 - of(used))}%` }} />
        {reserved > 0 ? <span className="marker" style={{ left: `calc(${of(reserved)}% - 1px)` }} /> : null}
      </div>
      <span className="text">
        {compact
          ? `${amount(name, used)} / ${amount(name, total)}`
          : `${amount(name, used)} of ${amount(name, total)} used (${percent(total > 0 ? used / total : 0, 0)})`}
        {!compact && offered > 0 ? ` · ${amount(name, offered)} offered` : ''}
        {!compact && reserved > 0 ? ` · ${amount(name, reserved)} reserved` : ''}
      </span>
    </div>
  );
}

export function UsageLegend() {
  return (
    <div className="legend" aria-hidden="true">
      <span>
        <i style={{ background: 'var(--used)' }} />
        used by tasks and executors
      </span>
      <span>
        <i style={{ background: 'var(--offered)' }} />
        offered
      </span>
      <span>
        <i style={{ background: 'var(--reserved)' }} />
        reserved (marker)
      </span>
    </div>
  );
}
