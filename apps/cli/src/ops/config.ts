/**
 * Where the CLI's connection settings come from: flags first, then the environment, then the
 * user's configuration file `$XDG_CONFIG_HOME/arbiter/config` (default `~/.config/arbiter/config`).
 *
 *   master      --master URLS      ARBITER_MASTER (or ARBITER_URL)   master = URL[,URL...]
 *   token file  --token-file FILE  ARBITER_TOKEN_FILE                token-file = FILE
 *   token       --token T          ARBITER_TOKEN                     (the file ~/.config/arbiter/token)
 *   CA          --ca FILE          ARBITER_CA_FILE                   ca = FILE
 *
 * The configuration file holds `key = value` lines; `#` starts a comment; blank lines are skipped.
 * A `[name]` line starts a profile, chosen with --profile NAME or ARBITER_PROFILE; lines before
 * the first section apply to every profile (a profile's own lines win).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TokenFlags } from '../credentials';
import { UsageError } from './errors';

export interface ConnectionFlags extends TokenFlags {
  master?: string;
  ca?: string;
  profile?: string;
  /** The token, found once already (a command that calls many times asks, or warns, once). */
  resolvedToken?: string;
}

/** What a command connects with, once flags, environment and configuration are combined. */
export interface Resolved {
  master: string;
  ca?: string;
  /** The flags to find the token with (`credentials.ts` applies its own order to them). */
  tokenFlags: TokenFlags;
  /** Where the master came from, for error messages. */
  masterFrom: 'flag' | 'env' | 'config';
}

export const CONFIG_KEYS = ['master', 'token-file', 'ca'] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

export function configPath(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'arbiter', 'config');
}

/** Parses the configuration file's text; `profile` picks a `[section]`. Throws UsageError naming the line. */
export function parseConfig(text: string, file: string, profile?: string): Partial<Record<ConfigKey, string>> {
  const common: Partial<Record<ConfigKey, string>> = {};
  const chosen: Partial<Record<ConfigKey, string>> = {};
  const sections = new Set<string>();
  let section: string | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) {
      section = header[1];
      sections.add(section);
      return;
    }
    const m = /^([a-z-]+)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new UsageError(`${file}:${i + 1}: expected 'key = value' or '[profile]', got '${raw.trim()}'`);
    const key = m[1] as ConfigKey;
    if (!CONFIG_KEYS.includes(key)) throw new UsageError(`${file}:${i + 1}: unknown key '${m[1]}' (known: ${CONFIG_KEYS.join(', ')})`);
    if (section === undefined) common[key] = m[2].trim();
    else if (section === profile) chosen[key] = m[2].trim();
  });
  if (profile !== undefined && !sections.has(profile))
    throw new UsageError(`${file} has no [${profile}] profile${sections.size ? ` (it has ${[...sections].join(', ')})` : ''}`);
  return { ...common, ...chosen };
}

function readConfig(env: NodeJS.ProcessEnv, home: string, profile?: string): Partial<Record<ConfigKey, string>> {
  const file = configPath(env, home);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      if (profile !== undefined) throw new UsageError(`--profile ${profile}: there is no ${file}`);
      return {};
    }
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
  return parseConfig(text, file, profile);
}

/** A configuration file's path: `~/` is the home directory. */
const home_ = (file: string | undefined, home: string) => (file?.startsWith('~/') ? path.join(home, file.slice(2)) : file);

/** Combines flags, environment and configuration file; throws UsageError when no master is given anywhere. */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, home: string): Resolved {
  const profile = flags.profile ?? (env.ARBITER_PROFILE || undefined);
  const config = readConfig(env, home, profile);
  const fromEnv = env.ARBITER_MASTER || env.ARBITER_URL;
  const master = flags.master ?? fromEnv ?? config.master;
  if (!master)
    throw new UsageError(
      `no control plane given: pass --master URL, set ARBITER_MASTER, or write 'master = URL' in ${configPath(env, home)}`,
    );
  const masterFrom = flags.master ? 'flag' : fromEnv ? 'env' : 'config';
  // The token: flags and environment first (credentials.ts's order); the config file's token-file only when neither names one.
  const tokenGiven = flags.token || flags.tokenFile || env.ARBITER_TOKEN_FILE || env.ARBITER_TOKEN || env.ARBITER_ADMIN_TOKEN;
  const tokenFile = flags.tokenFile ?? (tokenGiven ? undefined : home_(config['token-file'], home));
  const ca = flags.ca ?? (env.ARBITER_CA_FILE || undefined) ?? home_(config.ca, home);
  return {
    master,
    ...(ca ? { ca } : {}),
    tokenFlags: { ...(flags.token ? { token: flags.token } : {}), ...(tokenFile ? { tokenFile } : {}) },
    masterFrom,
  };
}
