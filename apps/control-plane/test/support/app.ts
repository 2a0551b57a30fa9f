/** A real control plane on a fresh database, and a small HTTP client for its API. */
import * as os from 'node:os';
import { principal } from '@arbiter/test-support';
import { mockAgent } from '@arbiter/test-support/mocks';
import { AgentEntity, AgentStatus } from '../../src/agents/agent.entity';
import type { AppConfig } from '../../src/config/config.schema';
import type { Clock } from '../../src/kernel/clock';
import { type ControlPlane, startControlPlane } from '../../src/server';
import { apiClient, type ApiClient, type RawOptions, type RawResponse, rawRequest } from './client';
import { makeDataDir, removeDataDir } from './data-dir';
import { freshDatabase } from './postgres';

import { ADMIN_TOKEN } from './admin-token';

export { ADMIN_TOKEN };

/**
 * Jest's limit for a hook that starts or stops control planes in the test's own process.
 * Starting one is a few seconds of CPU (the Nest application, the OpenAPI document, the
 * master's first term), which a loaded 2-core machine stretches past the tier's 30 s when two
 * start at once. A bound about the machine, not about the product: nothing waits on it.
 */
export const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Closes (drops their databases) what a file's hooks started, in the order given, skipping what
 * never started: when a beforeAll failed, its error is the one Jest shows, not a crash of the
 * afterAll on undefined.
 */
export async function closeStarted(...planes: Array<TestControlPlane | undefined>): Promise<void> {
  for (const plane of planes) await plane?.close();
}

/** As `closeStarted`, but stops the services only (the test drops the database they share). */
export async function stopStarted(...planes: Array<TestControlPlane | undefined>): Promise<void> {
  for (const plane of planes) await plane?.stop();
}

export interface TestControlPlane {
  cp: ControlPlane;
  databaseUrl: string;
  /** The REST API typed by the generated contracts, called as the admin. */
  client: ApiClient;
  /** A client calling with `token` (null: none). */
  clientAs(token: string | null): ApiClient;
  /** Creates a principal of `kind` (FRAMEWORK unless told) as the admin and returns a token for it. */
  principal(name: string, kind?: string): Promise<string>;
  /**
   * A request no typed client would send (bad JSON, a wrong content type, invalid values, an
   * unknown path); `body` is sent as JSON unless it is a string. Its answer's body is unknown.
   */
  request(method: string, url: string, body?: unknown, options?: RawOptions): Promise<RawResponse>;
  /** Stops the service and drops its database. */
  close(): Promise<void>;
  /** Stops the service only (the database stays, for restart tests). */
  stop(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Partial<AppConfig> = {}, dataDir = os.tmpdir()): AppConfig {
  return {
    port: 0,
    databaseUrl,
    dataDir,
    embeddedDbPort: 0,
    adminToken: ADMIN_TOKEN,
    allocationInterval: 1,
    allocationSliceMs: 1,
    agentTimeout: 15,
    agentReregisterTimeout: 600,
    offerTimeout: 0,
    minAllocatableResources: [{ cpus: 0.01 }, { mem: 32 }],
    fairSharingExcludedResourceNames: [],
    filterGpuResources: true,
    placement: 'mesos',
    mesosAllowAnonymous: false,
    mesosReadonlyAnonymous: false,
    mesosDefaultRole: 'default',
    maxFrameworksPerPrincipal: 100,
    connectionQueueMb: 16,
    principalQueueMb: 64,
    historyRetentionDays: 7,
    taskRetentionDays: 7,
    agentRetentionDays: 14,
    logLevel: 'silent',
    leaderLease: 10,
    pingInterval: 5,
    pingTimeout: 5,
    frameworkResubscribeGrace: 60,
    bodyLimit: 1_048_576,
    unauthenticatedBodyLimit: 16_384,
    maxConnections: 10_000,
    maxConnectionsPerAddress: 2_000,
    headersTimeout: 10,
    requestTimeout: 30,
    simulations: 1,
    ...overrides,
  };
}

export async function startTestControlPlane(
  options: { databaseUrl?: string; config?: Partial<AppConfig>; clock?: Clock } = {},
): Promise<TestControlPlane> {
  const db = options.databaseUrl === undefined ? await freshDatabase() : undefined;
  const databaseUrl = options.databaseUrl ?? db?.url ?? '';
  // A data directory of its own (the control plane writes nothing there on DATABASE_URL's
  // server, but a test may set what lives there), removed when the control plane stops.
  const dataDir = makeDataDir('arbiter-test-data-');
  const removeData = () => removeDataDir(dataDir);
  let cp: ControlPlane;
  try {
    cp = await startControlPlane(testConfig(databaseUrl, options.config, dataDir), { clock: options.clock });
  } catch (err) {
    removeData();
    await db?.drop();
    throw err;
  }
  const request = (method: string, url: string, body?: unknown, opts?: RawOptions) =>
    rawRequest(cp.url, ADMIN_TOKEN, method, url, body, opts);
  return {
    cp,
    databaseUrl,
    client: apiClient(cp.url, ADMIN_TOKEN),
    clientAs: (token) => apiClient(cp.url, token),
    principal: (name, kind) => principal({ url: cp.url, token: ADMIN_TOKEN }, name, kind),
    request,
    stop: async () => {
      await cp.close();
      removeData();
    },
    close: async () => {
      await cp.close();
      removeData();
      await db?.drop();
    },
  };
}

/**
 * A test file's control plane per test: `start` starts one; after each test (or on `close`) what
 * the test pushed on `closers` (its clients) is closed, then the control plane.
 */
export function controlPlaneBed() {
  let started: TestControlPlane | undefined;
  const closers: Array<() => void> = [];
  const close = async (): Promise<void> => {
    for (const c of closers.splice(0)) c();
    await started?.close();
    started = undefined;
  };
  afterEach(close);
  const start = async (options?: Parameters<typeof startTestControlPlane>[0]): Promise<TestControlPlane> =>
    (started = await startTestControlPlane(options));
  return { closers, start, close };
}

/** Inserts an agent as registration would (agents register over socket.io; see the scheduling issue). */
export async function seedAgent(
  cp: ControlPlane,
  fields: {
    id: string;
    hostname?: string;
    resources?: string;
    attributes?: Record<string, string | number>;
    status?: AgentStatus;
    activated?: boolean;
    lastSeenAt?: Date;
  },
): Promise<AgentEntity> {
  const repo = cp.dataSource.getRepository(AgentEntity);
  return repo.save(repo.create(mockAgent(fields)));
}
