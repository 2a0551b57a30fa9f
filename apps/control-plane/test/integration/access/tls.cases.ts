/**
 * The control plane over TLS: REST over HTTPS and the protocols over WSS, trusted through a
 * private CA given to each client; a client without the CA is refused with a clear error.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '@arbiter/agent';
import { type Offer, Scheduler } from '@arbiter/scheduler-sdk';
import pino from 'pino';
import { Agent as HttpsAgent, fetch } from 'undici';
import { ConfigError, loadConfig } from '../../../src/config/config.schema';
import { startTestControlPlane, type TestControlPlane } from '../../support/app';
import { defined, until } from '../../support/until';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-tls-test-'));
// Its agents' tasks run as another user, who must reach their sandboxes in here.
fs.chmodSync(dir, 0o711);
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
let t: TestControlPlane;
let ca: string;

beforeAll(async () => {
  // A self-signed certificate for 127.0.0.1 and localhost: it is its own CA.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  ca = fs.readFileSync(certFile, 'utf8');
  t = await startTestControlPlane({
    config: { tlsCert: { file: certFile, pem: ca }, tlsKey: { file: keyFile, pem: fs.readFileSync(keyFile, 'utf8') } },
  });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('serves the REST API over HTTPS to a client that trusts the CA, and a client without it is refused', async () => {
  expect(t.cp.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const token = await t.cp.issueServiceToken('tls-viewer');
  const trusted = await fetch(`${t.cp.url}/api/v1/whoami`, {
    headers: { authorization: `Bearer ${token}` },
    dispatcher: new HttpsAgent({ connect: { ca } }),
  });
  expect(await trusted.json()).toEqual({ principal: 'tls-viewer', kind: 'AGENT' });
  const untrusted = await fetch(`${t.cp.url}/api/v1/whoami`).then(
    () => 'connected',
    (err: unknown) => String((err as { cause?: { code?: string } }).cause?.code),
  );
  expect(untrusted).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
});

it('runs an agent and a framework over WSS with the CA, and a task on them', async () => {
  const agent = new Agent({
    master: t.cp.url,
    token: await t.cp.issueServiceToken('tls-agent'),
    hostname: 'tls-host',
    resources: [
      { name: 'cpus', value: 1 },
      { name: 'mem', value: 256 },
    ],
    attributes: {},
    workDir: path.join(dir, 'agent'),
    killTasksOnExit: true,
    ca,
    logger: pino({ level: 'silent' }),
  });
  agent.start();
  const s = new Scheduler({
    master: t.cp.url,
    token: await t.cp.issueServiceToken('tls-fw', 'FRAMEWORK'),
    framework: { name: 'tls', roles: ['tls'] },
    ca,
  });
  const offers: Offer[] = [];
  const states: string[] = [];
  s.on('offers', (o) => offers.push(...o));
  // Updates are delivered at least once: one resent before its acknowledgement landed counts once.
  const seen = new Set<string>();
  s.on('update', (u) => {
    if (!seen.has(u.updateUuid)) states.push(u.state);
    seen.add(u.updateUuid);
  });
  await s.start();
  await until(() => offers.some((o) => o.hostname === 'tls-host'));
  const offer = defined(offers.find((o) => o.hostname === 'tls-host'));
  await s.launch(offer, [{ taskId: 'over-tls', name: 'over-tls', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 0.1 }] }]);
  await until(() => states.includes('FINISHED'));
  expect(states).toEqual(['STARTING', 'RUNNING', 'FINISHED']);
  s.close();
  await agent.stop();
});

it('tells a scheduler without the CA that the certificate is not trusted, instead of retrying forever', async () => {
  const s = new Scheduler({ master: t.cp.url, token: 'whatever', framework: { name: 'no-ca', roles: ['x'] } });
  const error = new Promise<{ code?: string }>((resolve) => s.once('error', (e) => resolve(e as { code?: string })));
  void s.start().catch(() => undefined);
  expect(await error).toMatchObject({ code: 'TLS_CERTIFICATE_UNTRUSTED' });
  s.close();
});

it('checks the certificate and key at start: both given, readable, and a pair', () => {
  const otherKey = path.join(dir, 'other-key.pem');
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', otherKey], { stdio: 'ignore' });
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems.map((p) => `${p.setting} ${p.message}`);
      throw err;
    }
  };
  expect(problems({ ARBITER_TLS_CERT: certFile })).toEqual([`ARBITER_TLS_KEY (--tls-key) is required with the certificate ${certFile}`]);
  expect(problems({ ARBITER_TLS_KEY: keyFile })).toEqual([`ARBITER_TLS_CERT (--tls-cert) is required with the key ${keyFile}`]);
  expect(problems({ ARBITER_TLS_CERT: certFile, ARBITER_TLS_KEY: otherKey })).toEqual([
    "ARBITER_TLS_CERT / ARBITER_TLS_KEY the key is not the certificate's (they are not a pair)",
  ]);
  expect(problems({ ARBITER_TLS_CERT: keyFile, ARBITER_TLS_KEY: keyFile })[0]).toMatch(/holds no PEM CERTIFICATE/);
  expect(problems({ ARBITER_TLS_CERT: certFile, ARBITER_TLS_KEY: keyFile })).toEqual([]);
});
