/**
 * Where the database is: DATABASE_URL when given, otherwise the embedded server (started here,
 * with an `arbiter` database created on first start). Also scratch databases for tools.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from './database.embedded';

export interface DatabaseTarget {
  url: string;
  /** 'embedded' or 'external'. */
  kind: 'embedded' | 'external';
  /** Stops the embedded server (no-op for an external one). */
  stop(): Promise<void>;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Host:port/database of a URL, without credentials, for logs. */
export function describeUrl(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

export async function adminQuery(url: string, sql: string, params: unknown[] = []): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  embeddedDbPort: number;
  onLog?: (line: string) => void;
  onNotice?: (line: string) => void;
}): Promise<DatabaseTarget> {
  if (options.databaseUrl) return { url: options.databaseUrl, kind: 'external', stop: () => Promise.resolve() };
  const { dataDir, embeddedDbPort: port, onLog, onNotice } = options;
  const server = await startEmbeddedPostgres({ dataDir, port, onLog, onNotice });
  try {
    await ensureDatabase(server.url, 'arbiter');
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url: withDatabase(server.url, 'arbiter'), kind: 'embedded', stop: () => server.stop() };
}

/**
 * Runs `work` against a new, empty database: on DATABASE_URL's server when given, else on a
 * throwaway embedded server. The database is dropped afterwards.
 */
export async function withScratchDatabase<T>(databaseUrl: string | undefined, work: (url: string) => Promise<T>): Promise<T> {
  let serverUrl = databaseUrl;
  let stop = (): Promise<void> => Promise.resolve();
  let tmp: string | undefined;
  if (!serverUrl) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-scratch-'));
    const server = await startEmbeddedPostgres({ dataDir: tmp, port: 0, ephemeral: true });
    serverUrl = server.url;
    stop = () => server.stop();
  }
  const name = `arbiter_scratch_${crypto.randomBytes(6).toString('hex')}`;
  try {
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    try {
      return await work(withDatabase(serverUrl, name));
    } finally {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}
