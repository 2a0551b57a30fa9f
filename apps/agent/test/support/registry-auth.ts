/**
 * What a test registry needs for TLS and bearer tokens: a private CA and a certificate for
 * 127.0.0.1 (openssl), and a token server as Docker's token authentication specifies it
 * (GET /token with basic credentials -> a JWT signed RS256, its certificate in `x5c`, granting
 * the scope asked for), so a registry can answer with a bearer challenge as Docker Hub does.
 */
import { execFile } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';
import * as path from 'node:path';

function openssl(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('openssl', args, { cwd }, (err, _stdout, stderr) => (err ? reject(new Error(`openssl ${args[0]}: ${stderr}`)) : resolve())),
  );
}

/**
 * A CA (`<dir>/ca/ca.crt`: a directory as skopeo's --cert-dir reads it) and a server
 * certificate for 127.0.0.1 signed by it (`<dir>/server.crt`, `<dir>/server.key`).
 */
export async function privateCa(dir: string): Promise<{ caDir: string; cert: string; key: string }> {
  const caDir = path.join(dir, 'ca');
  fs.mkdirSync(caDir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', path.join('ca', 'ca.crt'), '-days', '2', '-subj', '/CN=Arbiter test CA'],
    dir,
  );
  await openssl(['req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      path.join('ca', 'ca.crt'),
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    ],
    dir,
  );
  return { caDir, cert: path.join(dir, 'server.crt'), key: path.join(dir, 'server.key') };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export interface TokenServer {
  realm: string;
  service: string;
  issuer: string;
  /** The certificate the registry trusts tokens from (its `rootcertbundle`). */
  certFile: string;
  /** Tokens handed out. */
  issued: number;
  stop(): Promise<void>;
}

/** A token server granting what is asked to `username`/`password` only (401 otherwise). */
export async function startTokenServer(dir: string, username: string, password: string): Promise<TokenServer> {
  await openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'token.key', '-out', 'token.crt', '-days', '2', '-subj', '/CN=token'],
    dir,
  );
  const key = crypto.createPrivateKey(fs.readFileSync(path.join(dir, 'token.key')));
  const der = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'token.crt'))).raw;
  const service = 'arbiter-test-registry';
  const issuer = 'arbiter-test-tokens';
  const state = { issued: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    if (url.pathname !== '/token' || req.headers.authorization !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const access = url.searchParams.getAll('scope').map((scope) => {
      const [type, name, actions] = scope.split(':');
      return { type, name, actions: actions.split(',') };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', x5c: [der.toString('base64')] }));
    const claims = b64url(
      JSON.stringify({
        iss: issuer,
        sub: username,
        aud: service,
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: crypto.randomUUID(),
        access,
      }),
    );
    const signature = b64url(crypto.sign('sha256', Buffer.from(`${header}.${claims}`), key));
    const token = `${header}.${claims}.${signature}`;
    state.issued++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    certFile: path.join(dir, 'token.crt'),
    get issued() {
      return state.issued;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
