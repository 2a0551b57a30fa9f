/**
 * Where an image is copied from: the registry's mirrors in order then the registry itself, or,
 * on an offline agent, an archive in its archive directory (Mesos's `--docker_registry=/path`).
 * Each source is skopeo's source argument and the flags that go with it: plain HTTP only for
 * the registries the operator allowed, the private CA directory, the agent's own credentials
 * file (never the host user's).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultRegistryOf, type ProvisionerOptions } from './options';
import { type ImageReference, normalizeRegistry } from './reference';

export interface Source {
  /** Named in messages: `registry 127.0.0.1:5000`, `archive /srv/images/busybox:1.tar`. */
  where: string;
  /** skopeo's source (`docker://...`, `docker-archive:...`, `oci-archive:...`). */
  image: string;
  args: string[];
  /** An archive: the pulled manifest's digest must equal a pinned one (a registry is asked for it by digest). */
  checkDigest: boolean;
  /**
   * A registry: a tag is first resolved to the registry's manifest digest (skopeo inspect, with
   * these flags), and that digest is copied, so what is stored and shown is what the registry
   * names, even where the copy converts a Docker manifest to OCI.
   */
  resolve?: { repository: string; args: string[] };
}

/** The credentials file skopeo reads (`auth.json`): only the registries the operator configured. */
export function authFileContent(options: ProvisionerOptions): string {
  const auths: Record<string, { auth: string }> = {};
  for (const [host, c] of Object.entries(options.credentials ?? {}))
    auths[normalizeRegistry(host)] = { auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') };
  return JSON.stringify({ auths });
}

export function registrySources(ref: ImageReference, options: ProvisionerOptions, authFile: string): Source[] {
  const insecure = new Set((options.insecureRegistries ?? []).map(normalizeRegistry));
  const mirrors = ref.registry === defaultRegistryOf(options) ? (options.mirrors ?? []).map(normalizeRegistry) : [];
  const path = `${ref.repository}${ref.digest ? `@${ref.digest}` : `:${ref.tag ?? 'latest'}`}`;
  // skopeo copy takes --src-authfile, skopeo inspect --authfile: the same flags, prefixed or not.
  const flags = (registry: string, prefix: string) => [
    `--${prefix}authfile`,
    authFile,
    ...(insecure.has(registry) ? [`--${prefix}tls-verify=false`] : []),
    ...(options.certDir ? [`--${prefix}cert-dir`, options.certDir] : []),
  ];
  return [...mirrors.filter((m) => m !== ref.registry), ref.registry].map((registry) => ({
    where: `registry ${registry}`,
    image: `docker://${registry}/${path}`,
    args: flags(registry, 'src-'),
    checkDigest: false,
    resolve: { repository: `docker://${registry}/${ref.repository}`, args: flags(registry, '') },
  }));
}

/**
 * The archive for a reference: `<dir>/<repository>:<tag>.tar` (Docker Hub's `library/` may be
 * left out: `busybox:1.36.tar`), or `<repository>@sha256:<hex>.tar` for a reference with a
 * digest only. skopeo cannot name a path with a colon, so the caller links it elsewhere.
 */
export function archiveFor(ref: ImageReference, dir: string): string | undefined {
  const repos = ref.repository.startsWith('library/') ? [ref.repository.slice('library/'.length), ref.repository] : [ref.repository];
  const names = ref.tag !== undefined ? [`:${ref.tag}`] : [`@${ref.digest}`];
  for (const repo of repos)
    for (const n of names) {
      const file = path.join(dir, `${repo}${n}.tar`);
      if (path.relative(dir, file).startsWith('..')) continue;
      if (fs.existsSync(file)) return file;
    }
  return undefined;
}

/** docker-archive (`docker save`) or oci-archive (an `oci-layout` file at the top). */
export function archiveTransport(file: string): Promise<'docker-archive' | 'oci-archive'> {
  return new Promise((resolve) => {
    execFile('tar', ['-tf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, list) =>
      resolve(!err && /^(\.\/)?oci-layout$/m.test(list) ? 'oci-archive' : 'docker-archive'),
    );
  });
}
