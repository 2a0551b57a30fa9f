import * as path from 'node:path';
import type { NextConfig } from 'next';

const config: NextConfig = {
  // The wire contracts are TypeScript sources in the workspace.
  transpilePackages: ['@arbiter/contracts'],
  poweredByHeader: false,
  reactStrictMode: true,
  // The workspace root holds the lock file and the hoisted node_modules.
  turbopack: { root: path.resolve(__dirname, '../..') },
  outputFileTracingRoot: path.resolve(__dirname, '../..'),
};

export default config;
