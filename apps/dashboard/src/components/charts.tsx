'use client';
/**
 * Charts: dominant share over time, and cycles over time. The chart library is most of the script of the
 * pages that chart, so it loads on its own, alongside the page's hydration: the page's data and
 * controls do not wait for it. Until it is there, a placeholder of the chart's height holds
 * its place and is marked busy.
 */
import dynamic from 'next/dynamic';
import type { ComponentProps } from 'react';
import type * as Charts from './plots';

export type { SharePoint } from './plots';

// Fetched as soon as a page that charts starts in the browser, alongside its hydration.
const load = () => import('./plots');
if (typeof window !== 'undefined') void load();

/** Holds a chart's place (its default height) while its script loads. */
const placeholder = (height: number) =>
  function ChartPlaceholder() {
    return <div className="chart-placeholder" style={{ height }} aria-busy="true" aria-label="Loading the chart" />;
  };

/** One line per client (role or framework), the dominant share after each recorded cycle. */
export const ShareChart = dynamic<ComponentProps<typeof Charts.ShareChart>>(() => load().then((m) => m.ShareChart), { ssr: false, loading: placeholder(260) });

/** Offers made per recorded cycle, oldest left. */
export const CyclesChart = dynamic<ComponentProps<typeof Charts.CyclesChart>>(() => load().then((m) => m.CyclesChart), { ssr: false, loading: placeholder(180) });
