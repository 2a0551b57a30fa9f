/**
 * Container images for tests, with no downloads: a test image built from the machine's static
 * busybox with umoci (sh, ps, cat, id, sleep, nc and an /etc/os-release with a marker), a Docker
 * registry from the operating system's packages (Debian's `docker-registry`) on a free port with
 * its storage in a temporary folder, optionally behind htpasswd basic auth or bearer tokens and
 * TLS from a private CA (registry-auth.ts), and skopeo to push
 * images into it or save them as archives. Built layouts are cached per marker for the run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { until } from '@arbiter/test-support';
import { privateCa, startTokenServer, type TokenServer } from './registry-auth';

export const BUSYBOX = '/usr/bin/busybox';
export const APPLETS = ['sh', 'ps', 'cat', 'id', 'sleep', 'nc', 'ls', 'echo', 'env', 'true', 'false'];

export interface TestRegistry {
  /** `127.0.0.1:<port>`: plain HTTP unless started with `tls`. */
  host: string;
  /** Where it keeps its blobs and manifests (`docker/registry/v2/...`). */
  storage: string;
  auth?: { username: string; password: string };
  /** TLS: the directory holding the private CA's certificate (`ca.crt`), as skopeo's --cert-dir reads it. */
  caDir?: string;
  /** Bearer tokens: the token server the registry sends clients to. */
  tokens?: TokenServer;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** Credentials it accepts: basic (htpasswd), or for bearer tokens from its token server when `bearer`. */
  auth?: { username: string; password: string };
  bearer?: boolean;
  /** HTTPS with a certificate from a private CA. */
  tls?: boolean;
}

function exec(file: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

const built = new Map<string, Promise<string>>();
let scratch: string | undefined;
const scratchDir = () => (scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-images-')));

/**
 * An OCI layout holding the test image as tag `image` (built once per marker and run): a
 * single layer with busybox and its applets, /etc/os-release reading `ID=<marker>`, and
 * `extraBytes` of random data in /data (to make an image of a chosen size).
 */
export function buildTestImage(marker = 'arbitertest', extraBytes = 0): Promise<string> {
  const key = `${marker}-${extraBytes}`;
  let layout = built.get(key);
  if (!layout) {
    layout = (async () => {
      const dir = path.join(scratchDir(), `layout-${key}`);
      const bundle = path.join(scratchDir(), `bundle-${key}`);
      await exec('umoci', ['init', '--layout', dir]);
      await exec('umoci', ['new', '--image', `${dir}:image`]);
      await exec('umoci', ['unpack', '--image', `${dir}:image`, bundle]);
      const rootfs = path.join(bundle, 'rootfs');
      for (const d of ['bin', 'etc', 'tmp', 'proc', 'sys', 'dev', 'data']) fs.mkdirSync(path.join(rootfs, d), { recursive: true });
      fs.copyFileSync(BUSYBOX, path.join(rootfs, 'bin', 'busybox'));
      fs.chmodSync(path.join(rootfs, 'bin', 'busybox'), 0o755);
      for (const a of APPLETS) fs.symlinkSync('busybox', path.join(rootfs, 'bin', a));
      fs.writeFileSync(path.join(rootfs, 'etc', 'os-release'), `ID=${marker}\nNAME="Arbiter test image"\n`);
      fs.writeFileSync(path.join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n');
      if (extraBytes > 0) fs.writeFileSync(path.join(rootfs, 'data', 'blob'), randomBytes(extraBytes));
      await exec('umoci', ['repack', '--image', `${dir}:image`, bundle]);
      await exec('umoci', [
        'config',
        '--image',
        `${dir}:image`,
        '--config.env',
        'PATH=/bin',
        '--config.cmd',
        '/bin/sh',
        '--config.workingdir',
        '/',
      ]);
      fs.rmSync(bundle, { recursive: true, force: true });
      return dir;
    })();
    built.set(key, layout);
  }
  return layout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A bcrypt htpasswd line (the registry reads only bcrypt) without apache2-utils: Python's crypt
 * (up to Python 3.12) or its bcrypt module, else apache2-utils' htpasswd where installed.
 */
async function htpasswd(username: string, password: string): Promise<string> {
  const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const scripts = [
    'import crypt,sys; print(sys.argv[1] + ":" + crypt.crypt(sys.argv[2], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))',
    'import bcrypt,sys; print(sys.argv[1] + ":" + bcrypt.hashpw(sys.argv[2].encode(), bcrypt.gensalt(4)).decode())',
  ];
  const tries = [
    ...scripts.map((script) => () => exec(python, ['-W', 'ignore', '-c', script, username, password])),
    () => exec('htpasswd', ['-nbB', username, password]),
  ];
  const failures: string[] = [];
  for (const attempt of tries) {
    try {
      const line = (await attempt()).trim();
      if (/^[^:]+:\$2[aby]\$/.test(line)) return line;
    } catch (err) {
      failures.push((err as Error).message.split('\n')[0]);
    }
  }
  throw new Error(`no way to make a bcrypt htpasswd line here (python3 crypt or bcrypt, or apache2-utils): ${failures.join('; ')}`);
}

const answers = (host: string, tls: boolean) =>
  new Promise<boolean>((resolve) => {
    const req = (tls ? https : http).get(`${tls ? 'https' : 'http'}://${host}/v2/`, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 || res.statusCode === 401);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(1000, () => req.destroy());
  });

/** Starts `docker-registry serve` on a free port: plain HTTP or TLS (a private CA), anonymous, basic auth or bearer tokens. */
export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const storage = path.join(dir, 'storage');
  let auth = '';
  let tokens: TokenServer | undefined;
  if (options.auth && options.bearer) {
    tokens = await startTokenServer(dir, options.auth.username, options.auth.password);
    auth = `auth:\n  token:\n    realm: ${tokens.realm}\n    service: ${tokens.service}\n    issuer: ${tokens.issuer}\n    rootcertbundle: ${tokens.certFile}\n`;
  } else if (options.auth) {
    fs.writeFileSync(path.join(dir, 'htpasswd'), `${await htpasswd(options.auth.username, options.auth.password)}\n`);
    auth = `auth:\n  htpasswd:\n    realm: arbiter-test\n    path: ${path.join(dir, 'htpasswd')}\n`;
  }
  const ca = options.tls ? await privateCa(dir) : undefined;
  const tls = ca ? `  tls:\n    certificate: ${ca.cert}\n    key: ${ca.key}\n` : '';
  const config = `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\n  delete:\n    enabled: true\nhttp:\n  addr: ${host}\n${tls}${auth}`;
  fs.writeFileSync(path.join(dir, 'config.yml'), config);
  const child: ChildProcess = spawn('/usr/bin/docker-registry', ['serve', path.join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const up = await until(async () => (await answers(host, !!ca)) || child.exitCode !== null, 15_000, 'the registry to answer').then(
    () => child.exitCode === null,
    () => false,
  );
  if (!up) {
    child.kill('SIGKILL');
    await exited;
    await tokens?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`docker-registry did not start: ${stderr}`);
  }
  let stopped = false;
  return {
    host,
    storage,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(ca ? { caDir: ca.caDir } : {}),
    ...(tokens ? { tokens } : {}),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await tokens?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Pushes the test image (built for `marker`) as `<registry>/<name>:<tag>`; resolves to its manifest digest. */
export async function pushTestImage(
  registry: TestRegistry,
  name: string,
  tag: string,
  options: { marker?: string; extraBytes?: number; /** Docker's manifest format (v2s2) instead of OCI's. */ format?: 'v2s2' | 'oci' } = {},
): Promise<string> {
  const layout = await buildTestImage(options.marker, options.extraBytes);
  const digestFile = path.join(scratchDir(), `push-${process.hrtime.bigint()}.digest`);
  const creds = registry.auth ? ['--dest-creds', `${registry.auth.username}:${registry.auth.password}`] : [];
  await exec('skopeo', [
    'copy',
    '--quiet',
    '--dest-tls-verify=false',
    ...(options.format === 'v2s2' ? ['--format', 'v2s2'] : []),
    ...creds,
    '--digestfile',
    digestFile,
    `oci:${layout}:image`,
    `docker://${registry.host}/${name}:${tag}`,
  ]);
  const digest = fs.readFileSync(digestFile, 'utf8').trim();
  fs.rmSync(digestFile);
  return digest;
}

/** Saves the test image as an archive (`docker save`'s format, or an OCI archive) at `file`; resolves to the OCI manifest's digest. */
export async function saveTestImage(
  file: string,
  format: 'docker-archive' | 'oci-archive',
  options: { marker?: string; name?: string } = {},
): Promise<string> {
  const layout = await buildTestImage(options.marker);
  // skopeo splits `transport:path:reference` at colons: write to a plain name, then move it.
  const tmp = path.join(scratchDir(), `archive-${process.hrtime.bigint()}.tar`);
  const ref = format === 'docker-archive' ? `:${options.name ?? 'test/image:latest'}` : '';
  await exec('skopeo', ['copy', '--quiet', `oci:${layout}:image`, `${format}:${tmp}${ref}`]);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.renameSync(tmp, file);
  const index = JSON.parse(fs.readFileSync(path.join(layout, 'index.json'), 'utf8')) as { manifests: Array<{ digest: string }> };
  return index.manifests[0].digest;
}

/** The blob files of the registry's storage (to tamper with one). */
export function registryBlob(registry: TestRegistry, digest: string): string {
  const hex = digest.replace(/^sha256:/, '');
  return path.join(registry.storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', hex.slice(0, 2), hex, 'data');
}

/** Removes the cached layouts (call once, after all). */
export function removeTestImages(): void {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
  built.clear();
}
