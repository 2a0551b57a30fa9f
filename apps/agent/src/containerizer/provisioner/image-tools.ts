/**
 * The image tools, found at start from the operating system's packages: skopeo talks to
 * registries and archives (and verifies every blob's digest), umoci unpacks OCI layouts. Both
 * missing or either: images are off on this agent, with the reason reported with its
 * capabilities (AgentCapabilities.imagesProblem), and plain tasks run as before.
 */
import { execFile, execFileSync } from 'node:child_process';
import { fileKey, probed, systemTool } from '../tools';
import { ImageError } from './image';

export interface ImageTools {
  skopeo: string;
  umoci: string;
}

export interface ImageToolsFound {
  tools?: ImageTools;
  /** Versions to report (AgentCapabilities.tools): `{ skopeo: '1.9.3', umoci: '0.4.7' }`. */
  versions: Record<string, string>;
  /** Why images cannot be provisioned here (AgentCapabilities.imagesProblem). */
  problem?: string;
}

function versionOf(file: string): string | undefined {
  return probed(
    `version ${fileKey(file)}`,
    (version: string | undefined) => version !== undefined,
    () => {
      try {
        const out = execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
        return /version\s+(\S+)/.exec(out)?.[1] ?? out.trim().slice(0, 200);
      } catch {
        return undefined;
      }
    },
  );
}

/** skopeo and umoci with their versions, or why images are off. */
export function detectImageTools(find: (name: string) => string | undefined = systemTool): ImageToolsFound {
  const versions: Record<string, string> = {};
  const found: Partial<ImageTools> = {};
  for (const name of ['skopeo', 'umoci'] as const) {
    const file = find(name);
    const version = file ? versionOf(file) : undefined;
    if (file && version !== undefined) {
      found[name] = file;
      versions[name] = version;
    }
  }
  const missing = (['skopeo', 'umoci'] as const).filter((n) => !found[n]);
  if (missing.length > 0)
    return { versions, problem: `${missing.join(' and ')} not installed (apt-get install skopeo umoci): container images cannot run here` };
  return { tools: found as ImageTools, versions };
}

/** A tool that failed: its stderr's last line, kept for the reason given to the user. */
export class ToolError extends Error {
  constructor(
    readonly tool: string,
    readonly stderr: string,
    readonly timedOut = false,
  ) {
    super(`${tool} failed: ${lastLine(stderr)}`);
  }
}

/** The fatal line of a Go tool's log (`level=fatal msg="..."`), else its last line. */
export function lastLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const line = lines[lines.length - 1] ?? '';
  const m = /msg="((?:[^"\\]|\\.)*)"/.exec(line);
  return (m ? m[1].replace(/\\"/g, '"') : line).slice(0, 600);
}

export function run(file: string, args: string[], options: { cwd: string; timeoutMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(new ToolError(file.split('/').pop() ?? file, stderr || err.message, err.killed === true));
        else resolve(stdout);
      },
    );
  });
}

/**
 * What went wrong, worded so the user can act: the image does not exist, the registry cannot be
 * reached (or speaks plain HTTP, or its certificate is not trusted), the credentials were
 * refused, a digest did not match, the disk is full.
 */
export function imageErrorOf(reference: string, where: string, err: unknown): ImageError {
  if (!(err instanceof ToolError)) return new ImageError(`image ${reference}: ${(err as Error).message}`);
  // Matched against all the tool said (a Go panic on a full disk ends with its stack, not its
  // cause); its last line is shown.
  const text = err.stderr;
  const shown = lastLine(err.stderr);
  const say = (what: string) => new ImageError(`image ${reference}: ${what} (${where}: ${shown})`);
  if (err.timedOut) return new ImageError(`image ${reference}: the pull from ${where} took too long and was stopped`);
  if (/no space left on device|disk quota exceeded/i.test(text)) return say('disk full on the agent while storing or unpacking the image');
  if (/digest did not match|does not match (provided )?(manifest )?digest|digest mismatch/i.test(text))
    return say('digest mismatch: the registry served content that does not match its digest');
  // What the registry's connection says first: its address may hold any digits (a port 34043
  // is no HTTP 404), so status codes are matched as whole words only.
  if (/server gave HTTP response to HTTPS client/i.test(text))
    return say(`registry ${where} speaks plain HTTP: list it among the agent's insecure registries to allow that`);
  if (/x509|certificate/i.test(text))
    return say(`registry ${where} presented a certificate the agent does not trust: add its CA to the registry certificate directory`);
  if (/unauthorized|authentication required|denied|\b40[13]\b/i.test(text))
    return say(`authentication refused by ${where}: check the agent's credentials for this registry`);
  if (/manifest unknown|name unknown|not found|no such file|does not exist|\b404\b/i.test(text))
    return say(`unknown image: ${where} has no such repository, tag or digest`);
  if (/connection refused|no such host|i\/o timeout|dial tcp|network is unreachable|connection reset|EOF|TLS handshake/i.test(text))
    return say(`registry unreachable: ${where} did not answer`);
  return say('the image could not be provisioned');
}

/** Failures of our own (a full disk writing the index, an unreadable blob) worded like the tools'. */
export function asImageError(reference: string, err: unknown): ImageError {
  if (err instanceof ImageError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOSPC')
    return new ImageError(`image ${reference}: disk full on the agent while storing or unpacking the image (${e.message})`);
  return new ImageError(`image ${reference}: the image could not be provisioned (${e.message})`);
}
