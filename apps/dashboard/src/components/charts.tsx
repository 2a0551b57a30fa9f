'use client';
/** Charts (Recharts): dominant share over time, and cycles over time. */
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { percent, time } from '@/lib/format';

const PALETTE = ['#2f6fdf', '#d9480f', '#2b8a3e', '#ae3ec9', '#c92a2a', '#0b7285', '#e67700', '#5f3dc4', '#087f5b', '#a61e4d'];
export const seriesColor = (i: number) => PALETTE[i % PALETTE.length];

export interface SharePoint {
  at: string;
  client: string;
  share: number;
}

/** One line per client (role or framework), the dominant share after each recorded cycle. */
export function ShareChart({ points, label, height = 260, names }: { points: SharePoint[]; label: string; height?: number; names?: Record<string, string> }) {
  const clients = [...new Set(points.map((p) => p.client))].sort();
  const byTime = new Map<string, Record<string, number | string>>();
  for (const p of points) {
    const row = byTime.get(p.at) ?? { at: p.at };
    row[p.client] = p.share;
    byTime.set(p.at, row);
  }
  const data = [...byTime.values()].sort((a, b) => String(a.at).localeCompare(String(b.at)));
  if (!data.length) return <div className="empty">No shares recorded yet: they appear once allocation cycles offer something.</div>;
  return (
    <div role="img" aria-label={label} style={{ width: '100%', height }}>
      <ResponsiveContainer>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
          <XAxis dataKey="at" tickFormatter={time} stroke="var(--muted)" fontSize={12} minTickGap={40} />
          <YAxis domain={[0, 1]} tickFormatter={(v: number) => percent(v, 0)} stroke="var(--muted)" fontSize={12} width={48} />
          <Tooltip labelFormatter={(v) => time(String(v))} formatter={(v, n) => [percent(Number(v)), names?.[String(n)] ?? String(n)]} contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)' }} />
          <Legend formatter={(n) => names?.[String(n)] ?? String(n)} />
          {clients.map((c, i) => (
            <Line key={c} type="stepAfter" dataKey={c} name={c} stroke={seriesColor(i)} dot={false} strokeWidth={2} isAnimationActive={false} connectNulls />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Offers made per recorded cycle, oldest left. */
export function CyclesChart({ cycles, height = 180, onSelect }: { cycles: Array<{ id: string; startedAt: string; offerCount: number; durationMs: number }>; height?: number; onSelect?: (id: string) => void }) {
  const data = [...cycles].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  if (!data.length) return <div className="empty">No cycles in this range.</div>;
  return (
    <div role="img" aria-label="Offers per allocation cycle" style={{ width: '100%', height }}>
      <ResponsiveContainer>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} onClick={(s) => s?.activeLabel && onSelect?.(String(data[Number(s.activeTooltipIndex)]?.id ?? ''))}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
          <XAxis dataKey="startedAt" tickFormatter={time} stroke="var(--muted)" fontSize={12} minTickGap={40} />
          <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} width={40} />
          <Tooltip labelFormatter={(v) => time(String(v))} formatter={(v, n) => [String(v), n === 'offerCount' ? 'offers' : String(n)]} contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)' }} />
          <Bar dataKey="offerCount" fill="var(--used)" isAnimationActive={false} cursor={onSelect ? 'pointer' : undefined} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
