// Shared Jest settings for every workspace project: SWC compiles TypeScript with legacy
// decorators and decorator metadata (NestJS needs both) to CommonJS. NestJS 12 ships as ES
// modules only, so its packages are transformed too. The transform (@swc/jest, through
// libs/test-support/setup/transform.js) and each project's `id` name no folder of the checkout, so
// Jest's cache of compiled files serves every clone of the same code on the machine.
//
// Tests come in three tiers, one Jest project per package and tier (`<package>:<tier>`):
//   unit         beside the code (src/**/*.spec.ts; a library's test/ too): no database, no process
//   integration  test/integration: real PostgreSQL and an in-process control plane, no child processes
//   e2e          test/e2e: real processes (agents, the CLI, child control planes, Chromium)
// ARBITER_TEST_TIER (e.g. `unit` or `integration,e2e`) keeps only those tiers' projects.
const base = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)sx?$': [
      require.resolve('./libs/test-support/setup/transform.js'),
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
};

const TIERS = ['unit', 'integration', 'e2e'];
const MATCH = {
  unit: ['<rootDir>/src/**/*.spec.ts'],
  integration: ['<rootDir>/test/integration/**/*.spec.ts'],
  e2e: ['<rootDir>/test/e2e/**/*.spec.ts'],
};
/** Each tier's own setup: how long `until` waits by default, and Jest's timeout per test. */
const SETUP = Object.fromEntries(TIERS.map((tier) => [tier, require.resolve(`./libs/test-support/setup/${tier}.js`)]));

/** The tiers asked for (ARBITER_TEST_TIER), all when none is. */
function selectedTiers() {
  const asked = (process.env.ARBITER_TEST_TIER ?? '').split(',').filter(Boolean);
  const unknown = asked.filter((t) => !TIERS.includes(t));
  if (unknown.length) throw new Error(`ARBITER_TEST_TIER: unknown tier ${unknown.join(', ')} (tiers: ${TIERS.join(', ')})`);
  return asked.length ? asked : TIERS;
}

/**
 * A package's Jest config: one project per tier it has. `tiers` maps a tier to what that
 * project adds to the shared settings (testMatch to widen or narrow it, globalSetup, ...).
 */
function tiered(rootDir, name, tiers) {
  const projects = Object.entries(tiers)
    .filter(([tier]) => selectedTiers().includes(tier))
    .map(([tier, extra]) => ({
      ...base,
      rootDir,
      id: `arbiter-${name}-${tier}`,
      displayName: `${name}:${tier}`,
      testMatch: MATCH[tier],
      ...extra,
      setupFilesAfterEnv: [SETUP[tier], ...(extra.setupFilesAfterEnv ?? [])],
    }));
  return { projects };
}

module.exports = { ...base, tiered, TIERS };
