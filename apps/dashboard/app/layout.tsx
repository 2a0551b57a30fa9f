import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import 'uplot/dist/uPlot.min.css';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Arbiter', template: '%s · Arbiter' },
  description: 'Arbiter cluster dashboard',
};

export const viewport: Viewport = { colorScheme: 'light dark' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
