/**
 * Docker image references (`busybox`, `registry:5000/team/app:1.2`, `app@sha256:...`) parsed and
 * normalized as Docker's distribution/reference does: a first component with a `.` or `:`, or
 * `localhost`, names the registry; without one the agent's default registry (Docker Hub unless
 * configured), and a one-component repository gets `library/` (as on Docker Hub and its
 * mirrors); no tag and no digest reads `latest`. The npm packages for this are unmaintained
 * ports, and the grammar is small, so it lives here with its tests.
 */

export const DOCKER_HUB = 'docker.io';

export interface ImageReference {
  /** `host[:port]` (docker.io for Docker Hub). */
  registry: string;
  /** `library/busybox`, `team/app`. */
  repository: string;
  tag?: string;
  /** `sha256:<64 hex>`: pins the manifest. */
  digest?: string;
}

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$|^\[[0-9a-fA-F:]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Why a reference cannot be parsed, worded for whoever wrote it. */
export class ReferenceError extends Error {}

/** Parses a reference; without a registry the default one (docker.io unless given). */
export function parseReference(text: string, defaultRegistry = DOCKER_HUB): ImageReference {
  const bad = (why: string) =>
    new ReferenceError(
      `'${text}' is not a Docker image reference (${why}): use e.g. busybox, registry:5000/team/app:1.2 or app@sha256:<64 hex>`,
    );
  if (text.length === 0 || text.length > 1024) throw bad('empty or too long');
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw bad('a digest reads sha256: and 64 lowercase hex digits');
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw bad(`tag '${tag}'`);
  }
  const parts = rest.split('/');
  let registry = normalizeRegistry(defaultRegistry);
  let explicit = false;
  if (parts.length > 1 && (parts[0].includes('.') || parts[0].includes(':') || parts[0] === 'localhost')) {
    if (!DOMAIN.test(parts[0])) throw bad(`registry '${parts[0]}'`);
    registry = normalizeRegistry(parts[0]);
    parts.shift();
    explicit = true;
  }
  // Docker Hub's official images live under library/, on Docker Hub and on its mirrors.
  if (parts.length === 1 && (!explicit || registry === DOCKER_HUB)) parts.unshift('library');
  for (const p of parts) if (!COMPONENT.test(p)) throw bad(`'${p}': repository names are lowercase letters, digits and separators`);
  const repository = parts.join('/');
  if (repository.length > 255) throw bad('repository name over 255 characters');
  return {
    registry,
    repository,
    ...(tag !== undefined || digest === undefined ? { tag: tag ?? 'latest' } : {}),
    ...(digest ? { digest } : {}),
  };
}

/** `index.docker.io` and `registry-1.docker.io` are Docker Hub; a scheme given by mistake is dropped. */
export function normalizeRegistry(host: string): string {
  const h = host.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
  return h === 'index.docker.io' || h === 'registry-1.docker.io' ? DOCKER_HUB : h;
}

/** `registry/repository:tag`, `registry/repository@digest` or both: the key the store knows an image by. */
export function formatReference(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** The same image on another registry (a mirror): repository, tag and digest kept. */
export function onRegistry(ref: ImageReference, registry: string): ImageReference {
  return { ...ref, registry: normalizeRegistry(registry) };
}
