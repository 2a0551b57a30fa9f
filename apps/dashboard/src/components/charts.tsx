'use client';
/**
 * Charts: dominant share over time, and cycles over time. On uPlot (canvas; small, and fast
 * with thousands of points): the server renders each chart's box at its height, the browser
 * draws it as the page hydrates. Colours come from the page's theme variables and follow a
 * change of the system's theme; the legend under each chart shows the values under the cursor.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { percent, time } from '@/lib/format';

const PALETTE = ['#2f6fdf', '#d9480f', '#2b8a3e', '#ae3ec9', '#c92a2a', '#0b7285', '#e67700', '#5f3dc4', '#087f5b', '#a61e4d'];
export const seriesColor = (i: number) => PALETTE[i % PALETTE.length];

export interface SharePoint {
  at: string;
  client: string;
  share: number;
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const clock = (s: number | null) => (s == null ? '—' : time(new Date(s * 1000).toISOString()));

/** uPlot's path builders are optional in its types (a custom build may leave them out); the package has them all. */
function pathBuilder<B>(builder: B | undefined, name: string): B {
  if (builder === undefined) throw new Error(`this build of uPlot has no ${name} paths`);
  return builder;
}

/** Tick steps of the time axis, in seconds: whole seconds at least. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

/** The time axis: clock times, with the day once the range spans more than one. */
function timeAxis(axis: uPlot.Axis): uPlot.Axis {
  return {
    ...axis,
    space: 80,
    incrs: TIME_STEPS,
    values: (u, ticks) => {
      const day = (u.scales.x.max ?? 0) - (u.scales.x.min ?? 0) > 86400;
      return ticks.map((t) =>
        day
          ? new Date(t * 1000).toLocaleString('en-GB', {
              day: '2-digit',
              month: 'short',
              hour: '2-digit',
              minute: '2-digit',
              hour12: false,
            })
          : clock(t),
      );
    },
  };
}

/** Axis styles and the accent colour of the element's theme. */
function themed(el: HTMLElement) {
  const style = getComputedStyle(el);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const line = v('--border', '#dde1e7');
  const axis: uPlot.Axis = {
    stroke: v('--muted', '#5b6470'),
    grid: { stroke: line, width: 1, dash: [3, 3] },
    ticks: { stroke: line, width: 1 },
    font: '12px system-ui, sans-serif',
  };
  return { axis, used: v('--used', '#2f6fdf') };
}

/**
 * One uPlot in the returned ref's element: made by `make` when `shape` (its series, size, ...)
 * or the system's theme changes, given new data otherwise, and kept as wide as its element.
 */
function usePlot(make: (el: HTMLElement, width: number, data: uPlot.AlignedData) => uPlot, data: uPlot.AlignedData, shape: string) {
  const ref = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef({ make, data });
  latest.current = { make, data };
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const build = () => {
      plot.current?.destroy();
      plot.current = latest.current.make(el, el.clientWidth, latest.current.data);
    };
    build();
    const resize = new ResizeObserver(() => {
      if (plot.current && plot.current.width !== el.clientWidth)
        plot.current.setSize({ width: el.clientWidth, height: plot.current.height });
    });
    resize.observe(el);
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', build);
    return () => {
      resize.disconnect();
      scheme.removeEventListener('change', build);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);
  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);
  return ref;
}

/** One line per client (role or framework), the dominant share after each recorded cycle. */
export function ShareChart({
  points,
  label,
  height = 260,
  names,
}: {
  points: SharePoint[];
  label: string;
  height?: number;
  names?: Record<string, string>;
}) {
  const clients = [...new Set(points.map((p) => p.client))].sort();
  const times = [...new Set(points.map((p) => p.at))].sort();
  const column = new Map(times.map((t, i) => [t, i]));
  const row = new Map(clients.map((c, i) => [c, i]));
  const series = clients.map(() => new Array<number | null>(times.length).fill(null));
  for (const p of points) {
    const r = row.get(p.client);
    const c = column.get(p.at);
    if (r !== undefined && c !== undefined) series[r][c] = p.share;
  }
  const data: uPlot.AlignedData = [times.map(seconds), ...series];
  const ref = usePlot(
    (el, width, initial) => {
      const { axis } = themed(el);
      const stepped = pathBuilder(uPlot.paths.stepped, 'stepped');
      return new uPlot(
        {
          width,
          height,
          scales: { y: { range: [0, 1] } },
          axes: [timeAxis(axis), { ...axis, size: 48, values: (_u, ticks) => ticks.map((t) => percent(t, 0)) }],
          series: [
            { value: (_u, v) => clock(v) },
            ...clients.map((c, i) => ({
              label: names?.[c] ?? c,
              stroke: seriesColor(i),
              width: 2,
              spanGaps: true,
              paths: stepped({ align: 1 }),
              points: { show: false },
              value: (_u: uPlot, v: number | null) => (v == null ? '—' : percent(v)),
            })),
          ],
        },
        initial,
        el,
      );
    },
    data,
    `${clients.join('\u0000')}|${JSON.stringify(names ?? {})}|${height}`,
  );
  if (!times.length) return <div className="empty">No shares recorded yet: they appear once allocation cycles offer something.</div>;
  return <div ref={ref} className="plot" role="img" aria-label={label} style={{ minHeight: height }} />;
}

/** Offers made per recorded cycle, oldest left; a click on a bar opens its cycle. */
export function CyclesChart({
  cycles,
  height = 180,
  onSelect,
}: {
  cycles: Array<{ id: string; startedAt: string; offerCount: number; durationMs: number }>;
  height?: number;
  onSelect?: (id: string) => void;
}) {
  const sorted = [...cycles].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const data: uPlot.AlignedData = [sorted.map((c) => seconds(c.startedAt)), sorted.map((c) => c.offerCount)];
  const current = useRef({ onSelect, ids: sorted.map((c) => c.id) });
  current.current = { onSelect, ids: sorted.map((c) => c.id) };
  const ref = usePlot(
    (el, width, initial) => {
      const { axis, used } = themed(el);
      const bars = pathBuilder(uPlot.paths.bars, 'bars');
      const plot = new uPlot(
        {
          width,
          height,
          scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          axes: [timeAxis(axis), { ...axis, size: 40, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
          series: [
            { value: (_u, v) => clock(v) },
            { label: 'offers', stroke: used, fill: used, paths: bars({ size: [0.8, 24] }), points: { show: false } },
          ],
        },
        initial,
        el,
      );
      plot.over.addEventListener('click', () => {
        const i = plot.cursor.idx;
        const { onSelect: select, ids } = current.current;
        if (i != null && select) select(ids[i]);
      });
      if (onSelect) plot.over.style.cursor = 'pointer';
      return plot;
    },
    data,
    String(height),
  );
  if (!sorted.length) return <div className="empty">No cycles in this range.</div>;
  return <div ref={ref} className="plot" role="img" aria-label="Offers per allocation cycle" style={{ minHeight: height }} />;
}
