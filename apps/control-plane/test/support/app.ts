/** A real control plane on a fresh database, and a small HTTP client for its API. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseResources } from '@arbiter/allocator';
import { AgentEntity, AgentStatus } from '../../src/agents/agent.entity';
import type { AppConfig } from '../../src/config/config.schema';
import type { Clock } from '../../src/kernel/clock';
import { type ControlPlane, startControlPlane } from '../../src/app/server';
import { freshDatabase } from './postgres';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestControlPlane {
  cp: ControlPlane;
  databaseUrl: string;
  /** Calls the API as the admin (or with `token`); `body` is sent as JSON unless it is a string. */
  api<T = any>(
    method: string,
    url: string,
    body?: unknown,
    options?: { token?: string | null; contentType?: string },
  ): Promise<ApiResponse<T>>;
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
    agentTimeout: 15,
    agentReregisterTimeout: 600,
    offerTimeout: 0,
    historyRetentionDays: 7,
    taskRetentionDays: 7,
    logLevel: 'silent',
    ...overrides,
  };
}

export async function startTestControlPlane(
  options: { databaseUrl?: string; config?: Partial<AppConfig>; clock?: Clock } = {},
): Promise<TestControlPlane> {
  const db = options.databaseUrl ? undefined : await freshDatabase();
  const databaseUrl = options.databaseUrl ?? db!.url;
  // A data directory of its own (the control plane writes nothing there on DATABASE_URL's
  // server, but a test may set what lives there), removed when the control plane stops.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-test-data-'));
  const removeDataDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  let cp: ControlPlane;
  try {
    cp = await startControlPlane(testConfig(databaseUrl, options.config, dataDir), { clock: options.clock });
  } catch (err) {
    removeDataDir();
    await db?.drop();
    throw err;
  }
  const api = async (method: string, url: string, body?: unknown, opts: { token?: string | null; contentType?: string } = {}) => {
    const headers: Record<string, string> = {};
    const token = opts.token === undefined ? ADMIN_TOKEN : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    const res = await fetch(cp.url + url, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
  return {
    cp,
    databaseUrl,
    api,
    stop: async () => {
      await cp.close();
      removeDataDir();
    },
    close: async () => {
      await cp.close();
      removeDataDir();
      await db?.drop();
    },
  };
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
  const now = new Date();
  const repo = cp.dataSource.getRepository(AgentEntity);
  return repo.save(
    repo.create({
      id: fields.id,
      hostname: fields.hostname ?? `${fields.id}.example`,
      address: null,
      attributes: fields.attributes ?? {},
      resources: parseResources(fields.resources ?? 'cpus:4;mem:8192;disk:10000;ports:[31000-32000]').toJSON(),
      status: fields.status ?? AgentStatus.REACHABLE,
      activated: fields.activated ?? true,
      drainState: null,
      drainConfig: null,
      drainStartedAt: null,
      version: null,
      firstSeenAt: now,
      lastSeenAt: fields.lastSeenAt ?? now,
    }),
  );
}
