/**
 * Where the CLI finds the token it calls the control plane with, so that no command needs it on
 * the command line (where every user of the machine reads it in the process list). In order:
 *
 *   1. `--token-file FILE` (or ARBITER_TOKEN_FILE): the file's first line;
 *   2. `--token T`: still accepted, with a warning on stderr;
 *   3. the environment: ARBITER_TOKEN (or ARBITER_ADMIN_TOKEN);
 *   4. the user's configuration: `$XDG_CONFIG_HOME/arbiter/token` (default `~/.config/arbiter/token`),
 *      refused when other users may read it;
 *   5. the token a local `npm start` keeps: `$ARBITER_DATA_DIR/admin-token` (default `.arbiter/`);
 *   6. a prompt without echo, when standard input is a terminal.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TokenFlags {
  token?: string;
  tokenFile?: string;
}

/** Where a token came from: said in error messages and used by tests. */
export type TokenSource = 'token-file' | 'flag' | 'env' | 'config' | 'data-dir' | 'prompt';

export interface TokenWhere {
  env: NodeJS.ProcessEnv;
  home: string;
  cwd: string;
  /** Asks the user without echo; undefined when there is no terminal to ask on. */
  prompt?: (question: string) => Promise<string>;
  warn: (line: string) => void;
}

export class CredentialsError extends Error {}

const firstLine = (text: string) => text.split(/\r?\n/, 1)[0].trim();

function readTokenFile(file: string, what: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CredentialsError(`${what}: ${(err as Error).message}`);
  }
  const token = firstLine(text);
  if (!token) throw new CredentialsError(`${what}: ${file} is empty`);
  return token;
}

export function configTokenPath(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'arbiter', 'token');
}

/** The token to call with, and where it came from; refuses with a sentence naming every way to give one. */
export async function resolveToken(flags: TokenFlags, where: TokenWhere = defaultWhere()): Promise<{ token: string; source: TokenSource }> {
  const { env } = where;
  const tokenFile = flags.tokenFile ?? (env.ARBITER_TOKEN_FILE || undefined);
  if (tokenFile) return { token: readTokenFile(tokenFile, flags.tokenFile ? '--token-file' : 'ARBITER_TOKEN_FILE'), source: 'token-file' };
  if (flags.token) {
    where.warn('--token puts the token in the process list, readable by every user of this machine; prefer --token-file or ARBITER_TOKEN');
    return { token: flags.token, source: 'flag' };
  }
  const fromEnv = env.ARBITER_TOKEN || env.ARBITER_ADMIN_TOKEN;
  if (fromEnv) return { token: fromEnv, source: 'env' };
  const config = configTokenPath(env, where.home);
  if (fs.existsSync(config)) {
    const mode = fs.statSync(config).mode;
    if (mode & 0o077) throw new CredentialsError(`${config} may be read by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
    return { token: readTokenFile(config, config), source: 'config' };
  }
  const local = path.resolve(where.cwd, env.ARBITER_DATA_DIR || '.arbiter', 'admin-token');
  if (fs.existsSync(local)) return { token: readTokenFile(local, local), source: 'data-dir' };
  if (where.prompt) {
    const typed = (await where.prompt('API token: ')).trim();
    if (typed) return { token: typed, source: 'prompt' };
  }
  throw new CredentialsError(
    `no token: give --token-file FILE, set ARBITER_TOKEN (or ARBITER_TOKEN_FILE), or keep it in ${config} (mode 600)`,
  );
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let typed = '';
    const done = (value: string) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0003' || ch === '\u0004') {
          done(ch === '\r' || ch === '\n' ? typed : '');
          return;
        }
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export function defaultWhere(): TokenWhere {
  return {
    env: process.env,
    home: os.homedir(),
    cwd: process.cwd(),
    prompt: process.stdin.isTTY ? promptHidden : undefined,
    warn: (line) => console.error(line),
  };
}
