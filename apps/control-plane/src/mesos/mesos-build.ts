/**
 * What a Mesos master says of itself: its version and build (`/version`, `/master/state`, the
 * operator API's GET_VERSION) and its flags (`/master/flags`, GET_FLAGS). The version is the
 * Mesos API level Arbiter speaks; the build fields are Arbiter's own (its package's version and
 * install time, and ARBITER_GIT_SHA / ARBITER_BUILD_USER when the image sets them). The flags are
 * the control plane's settings (config.schema.ts), secrets left out, by their flag names, with
 * the Mesos flags they stand for beside them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type AppConfig, SETTINGS } from '../config/config.schema';

/** The Mesos version Arbiter's APIs follow. */
export const MESOS_VERSION = '1.11.0';

export interface BuildInfo {
  version: string;
  build_date: string;
  build_time: number;
  build_user: string;
  git_sha: string;
  /** Arbiter's own version (the control plane's package). */
  arbiter_version: string;
}

let build: BuildInfo | undefined;

/** The build fields, read once. */
export function buildInfo(): BuildInfo {
  if (!build) {
    const pkg = path.join(__dirname, '..', '..', 'package.json');
    let version = '0.0.0';
    let built = new Date(0);
    try {
      version = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version?: string }).version ?? version;
      built = fs.statSync(pkg).mtime;
    } catch {
      // Not beside its package (a bundle): the fields stay at their defaults.
    }
    build = {
      version: MESOS_VERSION,
      build_date: built.toISOString().replace('T', ' ').slice(0, 19),
      build_time: Math.floor(built.getTime() / 1000),
      build_user: process.env.ARBITER_BUILD_USER ?? 'arbiter',
      git_sha: process.env.ARBITER_GIT_SHA ?? '',
      arbiter_version: version,
    };
  }
  return build;
}

/** The Mesos flags some of Arbiter's settings stand for. */
function mesosFlags(config: AppConfig): Record<string, string> {
  return {
    allocation_interval: `${config.allocationInterval}secs`,
    agent_reregister_timeout: `${config.agentReregisterTimeout}secs`,
    authenticate_http_frameworks: String(!config.mesosAllowAnonymous),
    authenticate_http_readonly: String(!config.mesosReadonlyAnonymous),
    authenticate_http_readwrite: 'true',
    fair_sharing_excluded_resource_names: config.fairSharingExcludedResourceNames.join(','),
    filter_gpu_resources: String(config.filterGpuResources),
    offer_timeout: config.offerTimeout > 0 ? `${config.offerTimeout}secs` : '',
    port: String(config.port),
    work_dir: config.dataDir,
  };
}

/** The flags as Mesos lists them: name to value, as strings. */
export function flagsOf(config: AppConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of SETTINGS) {
    if (s.secret) continue;
    const value = config[s.key];
    if (value === undefined) continue;
    out[s.flag.replace(/^--/, '').replace(/-/g, '_')] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  for (const [k, v] of Object.entries(mesosFlags(config))) if (v !== '') out[k] = v;
  return out;
}
