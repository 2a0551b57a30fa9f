/**
 * `arbiter bench e2e --flood`: hostile clients while the e2e load runs. From another loopback
 * address (127.0.0.2, as another host would), `bodies` clients send 1 MB JSON bodies without
 * credentials in a loop, and `slow` sockets hold connections the way slow clients do: half
 * never finish their headers (slowloris), half ask for a large answer and never read it.
 * Meanwhile an authenticated client probes the REST API one request at a time; the probe's
 * latency in the quiet half of the measurement is compared with the flooded half, and /health
 * says whether the leader kept its lease (still the leader, same term).
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import { percentile } from './bench-process';

export interface FloodFlags {
  /** Clients sending unauthenticated 1 MB bodies, each one request after another. */
  bodies: number;
  /** Sockets held open by slow clients. */
  slow: number;
}

/** Where the hostile clients connect from. */
const ATTACKER = '127.0.0.2';
const BODY = Buffer.alloc(1_048_576, 0x20);
BODY.write('{"change":{},"padding":"');
BODY.write('"}', BODY.length - 2);

interface Term {
  role: string;
  epoch: number | null;
}

async function term(url: string): Promise<Term> {
  const res = await fetch(`${url}/health`);
  const body = (await res.json()) as { role: string; epoch: number | null };
  return { role: body.role, epoch: body.epoch };
}

/** One authenticated request after another until stopped; latencies in ms. */
function probe(url: string, token: string): { take(): number[]; stop(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let samples: number[] = [];
  const run = { stopped: false };
  let failures = 0;
  void (async () => {
    while (!run.stopped) {
      const t0 = performance.now();
      const ok = await new Promise<boolean>((resolve) => {
        const req = http.get(`${url}/api/v1/agents?limit=10`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        });
        req.on('error', () => resolve(false));
      });
      if (ok) samples.push(performance.now() - t0);
      else failures++;
      await new Promise((r) => setTimeout(r, 20));
    }
    agent.destroy();
  })();
  return {
    take: () => {
      const out = samples;
      samples = [];
      if (failures) out.push(...new Array<number>(failures).fill(Number.POSITIVE_INFINITY));
      failures = 0;
      return out;
    },
    stop: () => (run.stopped = true),
  };
}

interface FloodStats {
  bodiesSent: number;
  answers: Record<string, number>;
  slowOpen: number;
  slowClosedByServer: number;
}

/** Starts the hostile clients; `stop` ends them and says what they met. */
function flood(url: string, flags: FloodFlags): { stop(): FloodStats } {
  const { hostname, port } = new URL(url);
  const stats: FloodStats = { bodiesSent: 0, answers: {}, slowOpen: 0, slowClosedByServer: 0 };
  const run = { stopped: false };
  const sockets: net.Socket[] = [];
  const count = (what: string) => (stats.answers[what] = (stats.answers[what] ?? 0) + 1);
  for (let c = 0; c < flags.bodies; c++)
    void (async () => {
      while (!run.stopped) {
        await new Promise<void>((resolve) => {
          const req = http.request(
            { hostname, port, path: '/api/v1/simulate', method: 'POST', localAddress: ATTACKER, agent: false },
            (res) => {
              count(String(res.statusCode));
              res.resume();
              res.on('end', resolve);
              res.on('error', () => resolve());
            },
          );
          req.setHeader('content-type', 'application/json');
          req.setHeader('content-length', BODY.length);
          req.on('error', (err: NodeJS.ErrnoException) => {
            count(err.code ?? 'error');
            resolve();
          });
          stats.bodiesSent++;
          req.end(BODY);
        });
      }
    })();
  for (let s = 0; s < flags.slow; s++) {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: ATTACKER });
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      stats.slowOpen++;
      if (s % 2 === 0) {
        // Slowloris: a header line now and then, never the blank line that ends them (what the
        // server answers is read, so that its closing is seen).
        socket.resume();
        socket.write('GET /health HTTP/1.1\r\nHost: arbiter\r\n');
        const drip = setInterval(() => socket.write(`X-${s}: 1\r\n`), 2000);
        socket.on('close', () => clearInterval(drip));
      } else {
        // A slow reader: a large answer asked for, never read.
        socket.pause();
        socket.write('GET /api/docs-json HTTP/1.1\r\nHost: arbiter\r\n\r\n');
      }
    });
    socket.on('close', () => {
      if (!run.stopped) stats.slowClosedByServer++;
    });
  }
  return {
    stop: () => {
      run.stopped = true;
      for (const s of sockets) s.destroy();
      return stats;
    },
  };
}

const ms = (v: number) => (Number.isFinite(v) ? Math.round(v * 10) / 10 : v);

/**
 * Runs for `seconds`: the first half quiet, the second flooded; prints the probe's latency in
 * each half and whether the leader kept its lease, and resolves with the figures.
 */
export async function floodPhase(url: string, token: string, seconds: number, flags: FloodFlags): Promise<Record<string, unknown>> {
  const before = await term(url);
  const probes = probe(url, token);
  await new Promise((r) => setTimeout(r, (seconds / 2) * 1000));
  const quiet = probes.take().sort((a, b) => a - b);
  const hostile = flood(url, flags);
  await new Promise((r) => setTimeout(r, (seconds / 2) * 1000));
  const flooded = probes.take().sort((a, b) => a - b);
  const stats = hostile.stop();
  probes.stop();
  const after = await term(url);
  const keptLease = before.role === 'leader' && after.role === 'leader' && before.epoch === after.epoch;
  const result = {
    keptLease,
    quietP50Ms: ms(percentile(quiet, 50)),
    quietP99Ms: ms(percentile(quiet, 99)),
    floodP50Ms: ms(percentile(flooded, 50)),
    floodP99Ms: ms(percentile(flooded, 99)),
    probes: { quiet: quiet.length, flooded: flooded.length },
    ...stats,
  };
  console.log(
    `flood (${flags.bodies} clients sending unauthenticated 1 MB bodies, ${flags.slow} slow sockets, from ${ATTACKER}): ` +
      `${stats.bodiesSent} bodies sent, answers ${JSON.stringify(stats.answers)}; slow sockets open ${stats.slowOpen}, closed by the server ${stats.slowClosedByServer}`,
  );
  console.log(
    `authenticated GET /api/v1/agents: quiet p50 ${result.quietP50Ms} ms, p99 ${result.quietP99Ms} ms; flooded p50 ${result.floodP50Ms} ms, p99 ${result.floodP99Ms} ms ` +
      `(p99 ${Math.round((percentile(flooded, 99) / percentile(quiet, 99)) * 100) / 100}x quiet)`,
  );
  console.log(
    `leader kept its lease: ${keptLease ? 'yes' : 'NO'} (before: ${before.role} term ${before.epoch}; after: ${after.role} term ${after.epoch})`,
  );
  return result;
}
