/**
 * A stateful key-value service on a persistent volume: the framework reserves disk for its
 * role, creates a volume on it, and runs its server (a small HTTP store, one file per key) with
 * the volume at `data/` in its sandbox. It stores a key, then kills the server and starts a new
 * one on the same volume, which still has the key; given `restartAgent`, it restarts the agent
 * (the server dies with it) and finds the key once more from a third server. Resolves with what
 * it saw; the volume (and the reservation) stay for the next run unless `cleanUp` is set.
 */
import { Resources } from '@arbiter/allocator';
import type { ResourceEntry } from '@arbiter/contracts';
import { type Offer, Scheduler, type StatusUpdate } from '@arbiter/scheduler-sdk';
import { START_TIMEOUT_MS } from './connect';

/** The server: GET and PUT /<key>, each key a file under data/ (written whole, then renamed). */
const KV_SERVER = `const http = require('http'), fs = require('fs'), path = require('path');
const dir = path.resolve('data');
http.createServer((req, res) => {
  const file = path.join(dir, encodeURIComponent(decodeURIComponent(req.url.slice(1))) || '_');
  if (req.method === 'PUT') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { fs.writeFileSync(file + '.tmp', body); fs.renameSync(file + '.tmp', file); res.end('stored'); });
  } else if (fs.existsSync(file)) res.end(fs.readFileSync(file));
  else { res.statusCode = 404; res.end('no such key'); }
}).listen(Number(process.env.PORT), '0.0.0.0');`;

export interface KvDemoResult {
  volume: string;
  /** The value read back from the second server, after the first was killed. */
  afterKill: string | null;
  /** The value read back after the agent restarted (null when no restart was asked). */
  afterAgentRestart: string | null;
}

export interface KvDemoOptions {
  master: string;
  token: string;
  role?: string;
  /** Where the servers are reached (default: the offer's hostname). */
  host?: string;
  /** Restarts the agent (its tasks die with it); the demo then checks the data once more. */
  restartAgent?: () => Promise<void>;
  /** Destroy the volume and unreserve the disk at the end. */
  cleanUp?: boolean;
  log?: (line: string) => void;
}

const DISK_MB = 64;
const VOLUME_ID = 'kv-data';
const TERMINAL = new Set(['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR', 'DROPPED', 'GONE', 'GONE_BY_OPERATOR', 'UNREACHABLE']);

export async function runKvDemo(options: KvDemoOptions): Promise<KvDemoResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const role = options.role ?? 'kv';
  const volume: ResourceEntry = { name: 'disk', value: DISK_MB, reservation: role, volume: VOLUME_ID };
  const s = new Scheduler({
    master: options.master,
    token: options.token,
    framework: { name: 'kv', roles: [role], failoverTimeoutSeconds: 600 },
  });
  const offers: Offer[] = [];
  const updates: StatusUpdate[] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  s.on('offers', (o: Offer[]) => {
    offers.push(...o);
    wake();
  });
  s.on('rescind', (id: string) => {
    const i = offers.findIndex((o) => o.id === id);
    if (i >= 0) offers.splice(i, 1);
  });
  s.on('update', (u: StatusUpdate) => {
    updates.push(u);
    wake();
  });
  /** Resolves once `check` holds (checked at each offer or update), or rejects after `ms`. */
  const until = <T>(check: () => T | undefined, what: string, ms = 60_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const attempt = () => {
        const v = check();
        if (v === undefined) return;
        clearTimeout(timer);
        waiters.delete(attempt);
        resolve(v);
      };
      const timer = setTimeout(() => {
        waiters.delete(attempt);
        reject(new Error(`kv: ${what} did not come within ${ms / 1000} s`));
      }, ms);
      waiters.add(attempt);
      attempt();
    });
  /** The next offer whose resources pass `test`; the others go back at once. */
  const offerWith = (test: (r: Resources) => boolean, what: string) =>
    until(() => {
      const found = offers.find((o) => test(Resources.of(o.resources)));
      for (const o of offers.splice(0)) if (o !== found) void s.decline(o.id, { refuseSeconds: 0 }).catch(() => undefined);
      return found;
    }, what);
  const hasVolume = (r: Resources) => r.contains(Resources.of([volume]));
  const stateOf = (taskId: string) => updates.filter((u) => u.taskId === taskId).at(-1)?.state;

  let generation = 0;
  /** Starts a server on the volume; resolves with its address once it answers. */
  const startServer = async (): Promise<string> => {
    const offer = await offerWith(
      (r) => hasVolume(r) && r.entries().some((e) => e.name === 'ports'),
      'an offer with the volume and a port',
    );
    const port = Resources.of(offer.resources)
      .entries()
      .find((e) => e.name === 'ports')?.ranges?.[0][0];
    if (port === undefined) throw new Error('kv: the offer has no port');
    const taskId = `kv-server-${++generation}`;
    await s.launch(offer, [
      {
        taskId,
        name: taskId,
        command: { shell: 'exec node -e "$KV_SERVER"' },
        env: { KV_SERVER, PORT: String(port) },
        resources: [...Resources.fromScalars({ cpus: 0.1, mem: 64 }).toJSON(), { name: 'ports', ranges: [[port, port]] }, volume],
      },
    ]);
    await until(
      () => (stateOf(taskId) === 'RUNNING' ? true : TERMINAL.has(stateOf(taskId) ?? '') ? fail(taskId) : undefined),
      `${taskId} RUNNING`,
    );
    const address = `http://${options.host ?? offer.hostname}:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answered = await fetch(`${address}/`).then(
        () => true,
        () => false,
      );
      if (answered) break;
      if (Date.now() > deadline || TERMINAL.has(stateOf(taskId) ?? '')) throw new Error(`kv: ${taskId} does not answer at ${address}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`${taskId} serves ${address} with volume ${VOLUME_ID} at data/`);
    return address;
  };
  const fail = (taskId: string): never => {
    const u = updates.filter((x) => x.taskId === taskId).at(-1);
    throw new Error(`kv: ${taskId} ended ${u?.state}${u?.message ? `: ${u.message}` : ''}`);
  };
  const get = async (address: string, key: string) => {
    const res = await fetch(`${address}/${key}`);
    return res.ok ? res.text() : null;
  };
  const stop = async (taskId: string) => {
    await s.kill(taskId);
    await until(() => (TERMINAL.has(stateOf(taskId) ?? '') ? true : undefined), `${taskId} to end`);
    log(`${taskId} ${stateOf(taskId)}`);
  };

  await s.start({ timeoutMs: START_TIMEOUT_MS });
  try {
    // The volume from an earlier run, else reserved disk, else disk to reserve.
    const first = await offerWith(
      (r) => hasVolume(r) || r.reserved(role).get('disk') >= DISK_MB || r.unreserved().get('disk') >= DISK_MB,
      'an offer with disk',
    );
    const have = Resources.of(first.resources);
    if (hasVolume(have)) {
      log(`volume ${VOLUME_ID} found from an earlier run`);
      await s.decline(first.id, { refuseSeconds: 0 });
    } else {
      let reserved = first;
      if (have.reserved(role).get('disk') < DISK_MB) {
        await s.accept([first.id], [{ type: 'RESERVE', resources: [{ name: 'disk', value: DISK_MB, reservation: role }] }]);
        log(`reserved ${DISK_MB} MB of disk for role ${role}`);
        reserved = await offerWith((r) => r.reserved(role).get('disk') >= DISK_MB, 'an offer with the reserved disk');
      }
      await s.createVolumes(reserved, [{ id: VOLUME_ID, disk: DISK_MB, containerPath: 'data' }]);
      log(`created volume ${VOLUME_ID} (${DISK_MB} MB) on it`);
    }
    let address = await startServer();
    const value = `hello from generation ${generation} at ${new Date().toISOString()}`;
    await fetch(`${address}/greeting`, { method: 'PUT', body: value });
    log(`PUT greeting = ${value}`);
    await stop(`kv-server-${generation}`);
    address = await startServer();
    const afterKill = await get(address, 'greeting');
    log(`GET greeting from a new server after the kill: ${afterKill}`);
    let afterAgentRestart: string | null = null;
    if (options.restartAgent) {
      const running = `kv-server-${generation}`;
      await options.restartAgent();
      await until(() => (TERMINAL.has(stateOf(running) ?? '') ? true : undefined), `${running} to end with its agent`);
      log(`the agent restarted; ${running} ${stateOf(running)}`);
      address = await startServer();
      afterAgentRestart = await get(address, 'greeting');
      log(`GET greeting from a new server after the agent restart: ${afterAgentRestart}`);
    }
    if (options.cleanUp) {
      await stop(`kv-server-${generation}`);
      const offer = await offerWith(hasVolume, 'the volume offered back');
      await s.destroyVolumes(offer, [VOLUME_ID]);
      const plain = await offerWith((r) => r.reserved(role).get('disk') >= DISK_MB && !hasVolume(r), 'the reserved disk offered back');
      await s.accept([plain.id], [{ type: 'UNRESERVE', resources: [{ name: 'disk', value: DISK_MB, reservation: role }] }]);
      log(`destroyed volume ${VOLUME_ID} and unreserved its disk`);
    }
    return { volume: VOLUME_ID, afterKill, afterAgentRestart };
  } finally {
    await s.teardown().catch(() => s.close());
  }
}
