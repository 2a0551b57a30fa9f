/**
 * Where the agent gets images from, as its operator configures it (an options object, or the
 * `arbiter agent` flags and ARBITER_* variables that fill it: see `imageOptionsFromEnv`).
 */
import { DOCKER_HUB, normalizeRegistry } from './reference';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface ProvisionerOptions {
  /** The registry of references that name none (default docker.io). */
  defaultRegistry?: string;
  /** Registries that mirror the default one, tried in order before it (`host[:port]`). */
  mirrors?: string[];
  /** Registries spoken to over plain HTTP (or HTTPS without verification): only these. */
  insecureRegistries?: string[];
  /** Basic credentials per registry (`host[:port]`); skopeo turns them into bearer tokens where the registry asks. */
  credentials?: Record<string, RegistryCredentials>;
  /** A directory of private CA certificates (`*.crt`) and client certificates, as skopeo's --src-cert-dir reads it. */
  certDir?: string;
  /**
   * An offline cluster's directory of image archives (Mesos's `--docker_registry=/path`):
   * `<dir>/<repository>:<tag>.tar`, docker-archive (`docker save`) or oci-archive. When set,
   * no registry is contacted.
   */
  archiveDir?: string;
  /** Unused images are collected, least recently used first, while the store is larger (default 10 GiB). */
  storeLimitBytes?: number;
  /** Longest a pull may take before it fails (default 10 minutes). */
  pullTimeoutMs?: number;
}

export const DEFAULT_STORE_LIMIT = 10 * 1024 * 1024 * 1024;

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * The options from ARBITER_* variables (the CLI's flags set the same names):
 * ARBITER_DEFAULT_REGISTRY, ARBITER_REGISTRY_MIRRORS (comma-separated),
 * ARBITER_INSECURE_REGISTRIES (comma-separated), ARBITER_REGISTRY_CREDENTIALS_FILE (JSON
 * `{"host:port": {"username": "...", "password": "..."}}`, read by the caller),
 * ARBITER_REGISTRY_CERT_DIR, ARBITER_IMAGE_ARCHIVE_DIR, ARBITER_IMAGE_STORE_LIMIT (bytes, or
 * with a K/M/G suffix).
 */
export function imageOptionsFromEnv(env: NodeJS.ProcessEnv): ProvisionerOptions {
  const limit = env.ARBITER_IMAGE_STORE_LIMIT ? parseBytes(env.ARBITER_IMAGE_STORE_LIMIT) : undefined;
  if (limit === null) throw new Error(`ARBITER_IMAGE_STORE_LIMIT: '${env.ARBITER_IMAGE_STORE_LIMIT}' is not a size such as 20G`);
  return {
    ...(env.ARBITER_DEFAULT_REGISTRY ? { defaultRegistry: normalizeRegistry(env.ARBITER_DEFAULT_REGISTRY) } : {}),
    mirrors: list(env.ARBITER_REGISTRY_MIRRORS).map(normalizeRegistry),
    insecureRegistries: list(env.ARBITER_INSECURE_REGISTRIES).map(normalizeRegistry),
    ...(env.ARBITER_REGISTRY_CERT_DIR ? { certDir: env.ARBITER_REGISTRY_CERT_DIR } : {}),
    ...(env.ARBITER_IMAGE_ARCHIVE_DIR ? { archiveDir: env.ARBITER_IMAGE_ARCHIVE_DIR } : {}),
    ...(limit !== undefined ? { storeLimitBytes: limit } : {}),
  };
}

/** `{"host": {"username", "password"}}` from a credentials file's text, checked. */
export function parseCredentials(text: string): Record<string, RegistryCredentials> {
  const data: unknown = JSON.parse(text);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error('must be a JSON object of registry -> {username, password}');
  const out: Record<string, RegistryCredentials> = {};
  for (const [host, c] of Object.entries(data as Record<string, unknown>)) {
    const { username, password } = (c ?? {}) as Record<string, unknown>;
    if (typeof username !== 'string' || typeof password !== 'string' || username.includes(':'))
      throw new Error(`'${host}' needs a string username (without ':') and password`);
    out[normalizeRegistry(host)] = { username, password };
  }
  return out;
}

/** `1048576`, `512M`, `20G` -> bytes; null when unreadable. */
export function parseBytes(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$/i.exec(text.trim());
  if (!m) return null;
  const power = { '': 0, K: 1, M: 2, G: 3, T: 4 }[m[2].toUpperCase() as '' | 'K' | 'M' | 'G' | 'T'];
  return Math.floor(Number(m[1]) * 1024 ** power);
}

export const defaultRegistryOf = (o: ProvisionerOptions) => normalizeRegistry(o.defaultRegistry ?? DOCKER_HUB);
