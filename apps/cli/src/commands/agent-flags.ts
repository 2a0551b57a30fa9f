/**
 * The agent command's flags that shape how tasks run (images, ports, isolation and volumes,
 * garbage collection, logs, the fetcher), each with its ARBITER_* variable, read and checked: a value that
 * is wrong throws an Error naming the flag, and the agent does not start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoadedModules } from '@arbiter/modules';

type AgentLib = typeof import('@arbiter/agent');

export interface AgentFlags {
  master?: string;
  resources?: string;
  resourcesFile?: string;
  attributes?: string;
  workDir?: string;
  sandboxDir?: string;
  token?: string;
  tokenFile?: string;
  taskUser?: string;
  allowRootTasks?: boolean;
  ca?: string;
  connectTimeout?: string;
  hostname?: string;
  killTasksOnExit?: boolean;
  executorRegistrationTimeout?: string;
  gcDelay?: string;
  gcDiskHeadroom?: string;
  executorApiAddress?: string;
  executorApiPort?: string;
  defaultRegistry?: string;
  registryMirrors?: string;
  insecureRegistries?: string;
  registryCredentialsFile?: string;
  registryCertDir?: string;
  imageArchiveDir?: string;
  imageStoreLimit?: string;
  containerPortsWatchInterval?: string;
  enforceContainerPorts?: boolean;
  checkAgentPortRangeOnly?: boolean;
  containerPortsIsolatedRange?: string;
  containerPortsExempt?: string;
  nvidiaGpuDevices?: string;
  nvidiaSmi?: string;
  fetcherCacheDir?: string;
  fetcherCacheSize?: string;
  fetcherMaxSize?: string;
  fetcherTimeout?: string;
  isolation?: string;
  allowedHostPaths?: string;
  logMaxSize?: string;
  logKeep?: string;
  modules?: string;
  oversubscribedResourcesInterval?: string;
}

function imageOptions(flags: AgentFlags, lib: Pick<typeof import('@arbiter/agent'), 'imageOptionsFromEnv' | 'parseCredentials'>) {
  const env = {
    ...process.env,
    ...(flags.defaultRegistry ? { ARBITER_DEFAULT_REGISTRY: flags.defaultRegistry } : {}),
    ...(flags.registryMirrors ? { ARBITER_REGISTRY_MIRRORS: flags.registryMirrors } : {}),
    ...(flags.insecureRegistries ? { ARBITER_INSECURE_REGISTRIES: flags.insecureRegistries } : {}),
    ...(flags.registryCertDir ? { ARBITER_REGISTRY_CERT_DIR: path.resolve(flags.registryCertDir) } : {}),
    ...(flags.imageArchiveDir ? { ARBITER_IMAGE_ARCHIVE_DIR: path.resolve(flags.imageArchiveDir) } : {}),
    ...(flags.imageStoreLimit ? { ARBITER_IMAGE_STORE_LIMIT: flags.imageStoreLimit } : {}),
  };
  const options = lib.imageOptionsFromEnv(env);
  const file = flags.registryCredentialsFile ?? (process.env.ARBITER_REGISTRY_CREDENTIALS_FILE || undefined);
  if (file) {
    try {
      options.credentials = lib.parseCredentials(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`--registry-credentials-file: ${(err as Error).message}`, { cause: err });
    }
  }
  return options;
}

/**
 * The agent's options that shape how tasks run, from its flags (see the module's comment):
 * `arbiter agent` passes its flags, `arbiter start`'s local agent none (the same ARBITER_*
 * variables apply). `resources`: what it offers (its ports).
 */
export function agentFlagOptions(
  flags: AgentFlags,
  lib: AgentLib,
  resources: { toJSON(): Array<{ name: string; ranges?: Array<[number, number]> }> },
) {
  const { isolation, allowedHostPaths } = isolationOptions(flags, lib);
  return {
    images: imageOptions(flags, lib),
    gc: gcOptions(flags, lib),
    logs: logOptions(flags, lib),
    oversubscription: oversubscriptionOptions(flags, lib),
    tasks: {
      taskUser: flags.taskUser ?? process.env.ARBITER_TASK_USER,
      allowRootTasks: flags.allowRootTasks ?? process.env.ARBITER_ALLOW_ROOT_TASKS === 'true',
      ports: portsOptions(flags, lib, resources),
      fetch: fetchOptions(flags, lib),
      ...(isolation ? { isolation } : {}),
      allowedHostPaths,
    },
  };
}

/** How often the resource estimator and QoS controller modules run (Mesos's --oversubscribed_resources_interval). */
function oversubscriptionOptions(flags: AgentFlags, lib: AgentLib): { intervalMs?: number } {
  const text = flags.oversubscribedResourcesInterval ?? process.env.ARBITER_OVERSUBSCRIBED_RESOURCES_INTERVAL;
  const intervalMs = lib.durationMs(text);
  if (text !== undefined && !(intervalMs !== undefined && intervalMs > 0))
    throw new Error(`--oversubscribed-resources-interval: '${text}' is not a duration above 0 such as 15s`);
  return intervalMs !== undefined ? { intervalMs } : {};
}

function portsOptions(
  flags: AgentFlags,
  lib: AgentLib,
  resources: { toJSON(): Array<{ name: string; ranges?: Array<[number, number]> }> },
) {
  const watchMs = lib.durationMs(flags.containerPortsWatchInterval);
  if (flags.containerPortsWatchInterval !== undefined && watchMs === undefined)
    throw new Error(`--container-ports-watch-interval: '${flags.containerPortsWatchInterval}' is not a duration such as 30s`);
  const ranges = (flag: string, text: string | undefined) => {
    const parsed = text === undefined ? undefined : lib.parsePortRanges(text);
    if (parsed && 'problem' in parsed) throw new Error(`${flag}: ${parsed.problem}`);
    return parsed;
  };
  if (flags.checkAgentPortRangeOnly && flags.containerPortsIsolatedRange !== undefined)
    throw new Error('give only one of --check-agent-port-range-only and --container-ports-isolated-range');
  // The agent's own ports; Mesos's default range when it offers none.
  const entries = resources.toJSON().filter((r) => r.name === 'ports');
  const own = entries.length ? entries.flatMap((r) => r.ranges ?? []) : [[31000, 32000] as [number, number]];
  const isolated = ranges('--container-ports-isolated-range', flags.containerPortsIsolatedRange);
  const exempt = ranges('--container-ports-exempt', flags.containerPortsExempt);
  const ports: import('@arbiter/agent').PortsOptions = {
    ...(watchMs !== undefined ? { watchIntervalMs: watchMs } : {}),
    enforce: flags.enforceContainerPorts !== false,
    ...(isolated ? { isolatedRanges: isolated } : flags.checkAgentPortRangeOnly ? { isolatedRanges: own } : {}),
    ...(exempt ? { exempt } : {}),
  };
  return ports;
}

function isolationOptions(flags: AgentFlags, lib: AgentLib): { isolation?: string[]; allowedHostPaths: string[] } {
  const isolationText = flags.isolation ?? process.env.ARBITER_ISOLATION;
  const isolation = isolationText
    ?.split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = isolation?.filter((n) => !(lib.OPTIONAL_ISOLATORS as readonly string[]).includes(n));
  if (unknown?.length)
    throw new Error(`--isolation: unknown isolator(s) ${unknown.join(', ')} (known: ${lib.OPTIONAL_ISOLATORS.join(', ')})`);
  const hostPaths = (flags.allowedHostPaths ?? process.env.ARBITER_ALLOWED_HOST_PATHS ?? '').split(':').filter((p) => p !== '');
  if (hostPaths.some((p) => !path.isAbsolute(p)))
    throw new Error(`--allowed-host-paths: every path must be absolute ('${hostPaths.join(':')}')`);
  return { ...(isolation ? { isolation } : {}), allowedHostPaths: hostPaths.map((p) => path.resolve(p)) };
}

function gcOptions(flags: AgentFlags, lib: AgentLib): { delayMs?: number; diskHeadroom?: number } {
  const delayText = flags.gcDelay ?? process.env.ARBITER_GC_DELAY;
  const delayMs = lib.durationMs(delayText);
  if (delayText !== undefined && delayMs === undefined)
    throw new Error(`--gc-delay: '${delayText}' is not a duration such as 1weeks, 2days or 12h`);
  const headroomText = flags.gcDiskHeadroom ?? process.env.ARBITER_GC_DISK_HEADROOM;
  const headroom = headroomText === undefined ? undefined : Number(headroomText);
  if (headroom !== undefined && !(headroom >= 0 && headroom < 1))
    throw new Error(`--gc-disk-headroom: '${headroomText}' is not a share of the disk from 0 to 1 (0.1: a tenth)`);
  return { ...(delayMs !== undefined ? { delayMs } : {}), ...(headroom !== undefined ? { diskHeadroom: headroom } : {}) };
}

function logOptions(flags: AgentFlags, lib: AgentLib): { maxBytes?: number; keep?: number } {
  const logMaxSize = flags.logMaxSize ?? (process.env.ARBITER_LOG_MAX_SIZE || undefined);
  const logKeep = flags.logKeep ?? (process.env.ARBITER_LOG_KEEP || undefined);
  const maxBytes = logMaxSize === undefined ? undefined : lib.parseBytes(logMaxSize);
  if (maxBytes === null) throw new Error(`--log-max-size: '${logMaxSize}' is not a size such as 10M`);
  const keep = logKeep === undefined ? undefined : Number(logKeep);
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 1 && keep <= 1000))
    throw new Error(`--log-keep: '${logKeep}' must be a whole number from 1 to 1000`);
  return { ...(maxBytes !== undefined ? { maxBytes } : {}), ...(keep !== undefined ? { keep } : {}) };
}

/** The fetcher's cache, size and time limits. */
function fetchOptions(flags: AgentFlags, lib: AgentLib) {
  const env = process.env;
  const cacheDir = flags.fetcherCacheDir ?? (env.ARBITER_FETCHER_CACHE_DIR || undefined);
  const bytes = (flag: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = lib.parseBytes(text);
    if (n === null || n <= 0) throw new Error(`${flag}: '${text}' is not a size such as 512M or 2G`);
    return n;
  };
  const cacheBytes = bytes('--fetcher-cache-size', flags.fetcherCacheSize ?? (env.ARBITER_FETCHER_CACHE_SIZE || undefined));
  const maxBytes = bytes('--fetcher-max-size', flags.fetcherMaxSize ?? (env.ARBITER_FETCHER_MAX_SIZE || undefined));
  const timeout = flags.fetcherTimeout ?? (env.ARBITER_FETCHER_TIMEOUT || undefined);
  const timeoutMs = lib.durationMs(timeout);
  if (timeout !== undefined && !timeoutMs) throw new Error(`--fetcher-timeout: '${timeout}' is not a duration such as 60s or 5mins`);
  return {
    ...(cacheDir ? { cacheDir: path.resolve(cacheDir) } : {}),
    ...(cacheBytes ? { cacheBytes } : {}),
    ...(maxBytes ? { maxBytes } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  };
}

interface AgentLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * The agent's modules (`--modules FILE`, ARBITER_MODULES), loaded before it starts: throws a
 * one-sentence error when the file or a module is wrong. Failures at run time go to the
 * agent's log once it exists (`attach`).
 */
export async function loadAgentModules(
  file: string | undefined,
): Promise<{ modules: LoadedModules; attach(log: AgentLog): void } | undefined> {
  if (file === undefined) return undefined;
  // Loaded only for an agent with modules (the allocator's types come with them).
  const { loadModules, readModulesFile } = await import('@arbiter/modules');
  let log: Pick<AgentLog, 'warn'> = { warn: (_fields, message) => console.error(message) };
  const modules = await loadModules(readModulesFile(file), { host: 'agent', log: (message, fields) => log.warn(fields, message) });
  return {
    modules,
    attach: (to) => {
      log = to;
      if (modules.modules.length)
        to.warn({ modules: modules.modules.map((m) => ({ name: m.name, use: m.use, points: m.points })) }, 'modules loaded');
    },
  };
}
