/**
 * `arbiter principal ...` and `arbiter token ...`: principals and their API tokens, against a
 * running control plane, with an admin token.
 *   arbiter principal create NAME --kind framework [--description TEXT]
 *   arbiter principal list | disable NAME
 *   arbiter token create --principal NAME [--ttl 30d] [--name TEXT]    prints the new token
 *   arbiter token list --principal NAME | revoke ID
 * --master (ARBITER_MASTER, or the configuration file) says where; the token comes from --token-file,
 * ARBITER_TOKEN, the user's configuration or a prompt (`credentials.ts`, `ops/config.ts`), never
 * necessarily from the command line.
 */
import type { Command } from 'commander';
import type { TokenFlags } from '../credentials';
import { type Client, connect } from '../ops/client';
import { UsageError } from '../ops/errors';
import { action, connectionOptions } from '../ops/output';

export interface Connection extends TokenFlags {
  master?: string;
  ca?: string;
  profile?: string;
  /** The token, found once already (a command that calls many times asks, or warns, once). */
  resolvedToken?: string;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "30d", "12h", "90m", "3600s" or "3600" -> seconds. */
export function parseTtl(text: string): number {
  const m = /^(\d+)([smhdw]?)$/.exec(text.trim());
  if (!m) throw new UsageError(`--ttl must read like 30d, 12h, 90m or 3600s (got '${text}')`);
  return Number(m[1]) * UNITS[m[2] || 's'];
}

/** One client per command run: the master list and token are resolved once. */
const clients = new WeakMap<Connection, Promise<Client>>();

/** Calls the REST API (`ops/client.ts`: the master list with failover, the API's errors as ApiError). */
export async function call(conn: Connection, method: string, path: string, body?: unknown): Promise<unknown> {
  let client = clients.get(conn);
  if (!client) {
    client = connect(conn);
    clients.set(conn, client);
  }
  return (await client).call(method, path, body);
}

/** Runs an action; an error prints one line (`arbiter: ...`) and sets the exit code (`ops/errors.ts`). */
export const run = action;

export const connection = connectionOptions;

export function register(program: Command): void {
  const principal = program.command('principal').description('principals: who may use the cluster, and as what kind');
  connection(
    principal
      .command('create')
      .argument('<name>')
      .requiredOption('--kind <kind>', 'admin, operator, viewer, framework or agent')
      .option('--description <text>'),
  ).action(
    run(async (name: string, opts: Connection & { kind: string; description?: string }) => {
      const p = (await call(opts, 'POST', '/api/v1/principals', {
        name,
        kind: opts.kind.toUpperCase(),
        ...(opts.description ? { description: opts.description } : {}),
      })) as { name: string; kind: string };
      console.log(`created ${p.kind} principal ${p.name}`);
    }),
  );
  connection(principal.command('list')).action(
    run(async (opts: Connection) => {
      const list = (await call(opts, 'GET', '/api/v1/principals')) as Array<{
        name: string;
        kind: string;
        liveTokens: number;
        disabledAt: string | null;
      }>;
      for (const p of list)
        console.log(`${p.name.padEnd(32)} ${p.kind.padEnd(10)} ${p.disabledAt ? 'disabled' : `${p.liveTokens} live token(s)`}`);
    }),
  );
  connection(principal.command('disable').argument('<name>')).action(
    run(async (name: string, opts: Connection) => {
      await call(opts, 'POST', `/api/v1/principals/${encodeURIComponent(name)}/disable`);
      console.log(`disabled ${name}: its tokens no longer work`);
    }),
  );

  const token = program.command('token').description("API tokens: issue one for a principal, list a principal's, revoke one");
  connection(
    token
      .command('create')
      .requiredOption('--principal <name>')
      .option('--ttl <duration>', 'expiry, e.g. 30d, 12h (default: never)')
      .option('--name <text>', 'what the token is for'),
  ).action(
    run(async (opts: Connection & { principal: string; ttl?: string; name?: string }) => {
      const body = { ...(opts.ttl ? { ttlSeconds: parseTtl(opts.ttl) } : {}), ...(opts.name ? { name: opts.name } : {}) };
      const t = (await call(opts, 'POST', `/api/v1/principals/${encodeURIComponent(opts.principal)}/tokens`, body)) as {
        token: string;
        id: string;
        expiresAt: string | null;
      };
      // The token alone on stdout (for scripts); the rest on stderr.
      console.error(`token ${t.id} for ${opts.principal}${t.expiresAt ? `, expires ${t.expiresAt}` : ''} (shown only now):`);
      console.log(t.token);
    }),
  );
  connection(token.command('list').requiredOption('--principal <name>')).action(
    run(async (opts: Connection & { principal: string }) => {
      const list = (await call(opts, 'GET', `/api/v1/principals/${encodeURIComponent(opts.principal)}/tokens`)) as Array<{
        id: string;
        name: string;
        expiresAt: string | null;
        revokedAt: string | null;
      }>;
      for (const t of list)
        console.log(`${t.id}  ${t.revokedAt ? 'revoked' : t.expiresAt ? `expires ${t.expiresAt}` : 'no expiry'}  ${t.name}`);
    }),
  );
  connection(token.command('revoke').argument('<id>')).action(
    run(async (id: string, opts: Connection) => {
      await call(opts, 'DELETE', `/api/v1/tokens/${encodeURIComponent(id)}`);
      console.log(`revoked ${id}`);
    }),
  );
}
