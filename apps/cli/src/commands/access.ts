/**
 * `arbiter principal ...` and `arbiter token ...`: principals and their API tokens, against a
 * running control plane, with an admin token.
 *   arbiter principal create NAME --kind framework [--description TEXT]
 *   arbiter principal list | disable NAME
 *   arbiter token create --principal NAME [--ttl 30d] [--name TEXT]    prints the new token
 *   arbiter token list --principal NAME | revoke ID
 * --master (ARBITER_MASTER) says where; the token comes from --token-file, ARBITER_TOKEN, the user's
 * configuration or a prompt (`credentials.ts`), never necessarily from the command line.
 */
import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { MasterUrls } from '@arbiter/contracts';
import type { Command } from 'commander';
import { resolveToken, type TokenFlags } from '../credentials';

export interface Connection extends TokenFlags {
  master?: string;
  ca?: string;
  /** The token, found once already (a command that calls many times asks, or warns, once). */
  resolvedToken?: string;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "30d", "12h", "90m", "3600s" or "3600" -> seconds. */
export function parseTtl(text: string): number {
  const m = /^(\d+)([smhdw]?)$/.exec(text.trim());
  if (!m) throw new Error(`--ttl must read like 30d, 12h, 90m or 3600s (got '${text}')`);
  return Number(m[1]) * UNITS[m[2] || 's'];
}

class UsageError extends Error {}

export async function call(conn: Connection, method: string, path: string, body?: unknown): Promise<unknown> {
  const master = conn.master ?? process.env.ARBITER_MASTER;
  if (!master) throw new UsageError('--master is required (or set ARBITER_MASTER), e.g. --master http://127.0.0.1:8080');
  const token = conn.resolvedToken ?? (await resolveToken(conn)).token;
  const caFile = conn.ca ?? (process.env.ARBITER_CA_FILE || undefined);
  let masters: MasterUrls;
  try {
    masters = new MasterUrls(master);
  } catch (err) {
    throw new UsageError(`--master: ${(err as Error).message}`);
  }
  const init = {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
  // A private CA: undici's fetch with an agent that trusts it.
  const dispatcher = caFile
    ? new (await import('undici')).Agent({ connect: { ca: [...tls.rootCertificates, fs.readFileSync(caFile, 'utf8')] } })
    : undefined;
  // Every replica serves the API: the first that answers will do.
  let res: { ok: boolean; status: number; text(): Promise<string> } | undefined;
  const failures: string[] = [];
  for (const base of masters.urls) {
    try {
      res = dispatcher
        ? await (await import('undici')).fetch(new URL(path, base), { ...init, dispatcher })
        : await fetch(new URL(path, base), init);
      break;
    } catch (err) {
      const cause = (err as Error & { cause?: Error }).cause;
      failures.push(`${base}: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}`);
    }
  }
  if (!res) throw new UsageError(`cannot reach the control plane at ${failures.join('; ')}`);
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e = parsed as { code?: string; message?: string } | null;
    throw new UsageError(`${res.status} ${e?.code ?? ''}: ${e?.message ?? text}`);
  }
  return parsed;
}

/** Runs an action; a refused call or a usage problem prints one line and exits 1. */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (!(err instanceof UsageError || err instanceof Error)) throw err;
      console.error(err.message);
      process.exitCode = 1;
    }
  };
}

export const connection = (cmd: Command) =>
  cmd
    .option('--master <urls>', "control plane URL, or its replicas' URLs comma-separated (ARBITER_MASTER)")
    .option(
      '--token-file <file>',
      'a file holding an admin token (ARBITER_TOKEN_FILE; or ARBITER_TOKEN, ~/.config/arbiter/token, a prompt)',
    )
    .option('--token <token>', 'the token itself (visible to other users in the process list: prefer --token-file)')
    .option('--ca <file>', 'PEM certificate(s) to trust for an https:// master (ARBITER_CA_FILE)');

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
