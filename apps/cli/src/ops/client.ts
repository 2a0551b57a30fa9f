/**
 * The CLI's calls to the control plane's REST API (/api/v1/...). Every replica serves it, so the
 * first URL of the master list that answers will do: a URL that cannot be reached (refused, reset,
 * timed out) is skipped for the next, and a 307 (a standby naming its leader, as the Mesos
 * endpoints answer) is followed with the same method, body and token, up to five times.
 * An error answer becomes an ApiError carrying the API's code; no URL answering, an UnreachableError.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as tls from 'node:tls';
import { MasterUrls } from '@arbiter/contracts/masters';
import { resolveToken } from '../credentials';
import { type ConnectionFlags, resolveConnection } from './config';
import { ApiError, UnreachableError, UsageError } from './errors';

export interface Client {
  /** The master list as given. */
  readonly masters: readonly string[];
  /** The token the calls carry (the /events socket of --follow authenticates with it too). */
  readonly token: string;
  /** Certificates trusted for https:// (the system's and --ca's), when --ca is given. */
  readonly ca?: string[];
  /** The URL that answered last (the first of the list before any call). */
  base(): string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

const MAX_REDIRECTS = 5;
/** Seconds a URL may take to answer before the next is tried (ARBITER_CONNECT_TIMEOUT). */
const DEFAULT_TIMEOUT_S = 10;

interface Answer {
  status: number;
  headers: Headers;
  text(): Promise<string>;
}

type Fetch = (url: URL, init: RequestInit) => Promise<Answer>;

function trusted(ca: string | undefined): string[] | undefined {
  if (!ca) return undefined;
  try {
    return [...tls.rootCertificates, fs.readFileSync(ca, 'utf8')];
  } catch (err) {
    throw new UsageError(`--ca: ${(err as Error).message}`);
  }
}

async function fetcher(ca: string[] | undefined): Promise<Fetch> {
  if (!ca) return (url, init) => fetch(url, init);
  const undici = await import('undici');
  const dispatcher = new undici.Agent({ connect: { ca } });
  return (url, init) => undici.fetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Answer>;
}

function parseBody(text: string, status: number): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    if (status >= 400) return { message: text.trim().slice(0, 300) };
    throw new ApiError(status, 'BAD_ANSWER', `the control plane answered something that is not JSON: ${text.slice(0, 120)}`);
  }
}

/** A client for the master list and token that the flags, environment and configuration give. */
export async function connect(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): Promise<Client> {
  const resolved = resolveConnection(flags, env, home);
  let masters: MasterUrls;
  try {
    masters = new MasterUrls(resolved.master);
  } catch (err) {
    const where = resolved.masterFrom === 'flag' ? '--master' : resolved.masterFrom === 'env' ? 'ARBITER_MASTER' : 'the configuration file';
    throw new UsageError(`${where}: ${(err as Error).message}`);
  }
  const token = flags.resolvedToken ?? (await resolveToken(resolved.tokenFlags)).token;
  const ca = trusted(resolved.ca);
  const doFetch = await fetcher(ca);
  const timeoutS = Number(env.ARBITER_CONNECT_TIMEOUT || DEFAULT_TIMEOUT_S);
  // The URL that answered last is tried first next time (a --watch loop keeps to it).
  let preferred = 0;

  async function once(url: URL, method: string, body: unknown): Promise<Answer> {
    return doFetch(url, {
      method,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutS * 1000),
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const failures: string[] = [];
    const urls = masters.urls;
    for (let i = 0; i < urls.length; i++) {
      const index = (preferred + i) % urls.length;
      let url = new URL(path, urls[index]);
      let res: Answer;
      try {
        res = await once(url, method, body);
        for (let hops = 0; res.status === 307 && hops < MAX_REDIRECTS; hops++) {
          const location = res.headers.get('location');
          if (!location) break;
          url = new URL(location, url);
          res = await once(url, method, body);
        }
      } catch (err) {
        const cause = (err as Error & { cause?: Error }).cause;
        const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutS} s` : (cause?.message ?? (err as Error).message);
        failures.push(`${url.origin} (${why})`);
        continue;
      }
      preferred = index;
      const parsed = parseBody(await res.text(), res.status);
      if (res.status >= 200 && res.status < 300) return parsed as T;
      const e = (parsed ?? {}) as { code?: string; message?: string | string[]; details?: unknown };
      const message = Array.isArray(e.message) ? e.message.join('; ') : (e.message ?? `HTTP ${res.status}`);
      throw new ApiError(res.status, e.code ?? `HTTP_${res.status}`, message, e.details);
    }
    throw new UnreachableError(`unreachable: no control plane answered: ${failures.join(', ')}`);
  }

  return { masters: masters.urls, token, ...(ca ? { ca } : {}), base: () => masters.urls[preferred], call };
}
