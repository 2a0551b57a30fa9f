/**
 * The SDK against a stand-in control plane: a socket.io server in this process that answers
 * the /frameworks calls as the protocol says, so the SDK's own behaviour (subscription and
 * re-subscription with its framework id, events, automatic acknowledgements, errors, call
 * timeouts, refused authentication) is tested without a database.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FrameworkCalls, FrameworkEvents, Offer, StatusUpdate } from '@arbiter/contracts';
import { type Namespace, Server, type Socket } from 'socket.io';
import { until } from '@arbiter/test-support';
import { LAUNCH_UNKNOWN, Scheduler, SchedulerError } from './index';

type Peer = Socket<FrameworkCalls, FrameworkEvents>;

const offer: Offer = {
  id: '6f2f8a52-7b1f-4a8f-9bb0-3b1a0c1d2e3f',
  frameworkId: 'fw-1',
  agentId: 'agent-1',
  hostname: 'h1',
  role: 'r',
  resources: [{ name: 'cpus', value: 2 }],
  attributes: {},
};

const status: StatusUpdate = {
  updateUuid: '0b6c5f7e-3a55-4a7e-8f0a-1c2d3e4f5a6b',
  frameworkId: 'fw-1',
  taskId: 't1',
  agentId: 'agent-1',
  state: 'RUNNING',
  timestamp: new Date(0).toISOString(),
  source: 'SOURCE_AGENT',
};

describe('Scheduler', () => {
  let http: HttpServer;
  let io: Server;
  let ns: Namespace<FrameworkCalls, FrameworkEvents>;
  let url: string;
  const peers: Peer[] = [];
  const subscriptions: Array<{ frameworkId?: string; name: string }> = [];
  const acks: Array<{ taskId: string; updateUuid: string }> = [];
  const reconciled: string[][] = [];
  const operationAcks: Array<{ operationId: string; uuid: string; agentId?: string }> = [];
  let schedulers: Scheduler[] = [];

  beforeEach(async () => {
    http = createServer();
    io = new Server(http);
    ns = io.of('/frameworks');
    ns.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: string }).token;
      if (token === 'good-token') next();
      else next(Object.assign(new Error('the bearer token is unknown'), { data: { code: 'AUTH_TOKEN_INVALID' } }));
    });
    ns.on('connection', (socket: Peer) => {
      peers.push(socket);
      socket.on('subscribe', (m, ack) => {
        subscriptions.push({ name: m.name, ...(m.frameworkId ? { frameworkId: m.frameworkId } : {}) });
        ack?.({ ok: true, frameworkId: m.frameworkId ?? 'fw-1', heartbeatIntervalSeconds: 15 });
      });
      socket.on('acknowledge', (m, ack) => {
        acks.push(m);
        ack?.({ ok: true });
      });
      socket.on('decline', (_m, ack) => ack?.({ ok: false, error: { code: 'OFFER_STALE', message: 'offer is no longer valid' } }));
      socket.on('acknowledgeOperationStatus', (m) => operationAcks.push(m));
      socket.on('reconcile', (m, ack) => {
        reconciled.push((m.tasks ?? []).map((t) => t.taskId));
        ack?.({ ok: true });
      });
      // 'kill' and 'accept' are never answered: the SDK's call timeout (or a lost connection) has to end them.
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    for (const s of schedulers) s.close();
    schedulers = [];
    peers.length = 0;
    subscriptions.length = 0;
    acks.length = 0;
    reconciled.length = 0;
    operationAcks.length = 0;
    await new Promise<void>((resolve) => {
      void io.close(() => resolve());
    });
  });

  const scheduler = (options: Partial<ConstructorParameters<typeof Scheduler>[0]> = {}) => {
    const s = new Scheduler({ master: url, token: 'good-token', framework: { name: 'sdk-test', roles: ['r'] }, ...options });
    schedulers.push(s);
    return s;
  };

  it('subscribes, passes offers and updates on, and acknowledges each update once its handlers ran', async () => {
    const s = scheduler();
    const reply = await s.start();
    expect(reply).toEqual({ frameworkId: 'fw-1', heartbeatIntervalSeconds: 15 });
    expect(s.frameworkId).toBe('fw-1');
    const offers = new Promise<Offer[]>((resolve) => s.once('offers', resolve));
    const updates = new Promise<StatusUpdate>((resolve) => s.once('update', resolve));
    peers[0].emit('offers', { offers: [offer] });
    peers[0].emit('update', { status });
    expect(await offers).toEqual([offer]);
    expect(await updates).toEqual(status);
    await until(() => acks.length === 1);
    expect(acks).toEqual([{ taskId: 't1', updateUuid: status.updateUuid }]);
  });

  it('passes operation statuses on and acknowledges those with a uuid (the others need none)', async () => {
    const s = scheduler();
    await s.start();
    const seen: string[] = [];
    s.on('operationStatus', (st) => seen.push(st.operationId));
    const finished = {
      operationId: 'op-1',
      state: 'OPERATION_FINISHED' as const,
      agentId: 'agent-1',
      uuid: '6f1c5e2a-0000-4000-8000-000000000001',
    };
    peers[0].emit('operationStatus', { status: { operationId: 'op-0', state: 'OPERATION_ERROR', message: 'refused' } });
    peers[0].emit('operationStatus', { status: finished });
    await until(() => seen.length === 2 && operationAcks.length === 1);
    expect(seen).toEqual(['op-0', 'op-1']);
    expect(operationAcks).toEqual([{ operationId: 'op-1', uuid: finished.uuid, agentId: 'agent-1' }]);
  });

  it('leaves acknowledgements to the framework when asked to', async () => {
    const s = scheduler({ autoAcknowledge: false });
    await s.start();
    const updates = new Promise<StatusUpdate>((resolve) => s.once('update', resolve));
    peers[0].emit('update', { status });
    await updates;
    await s.acknowledge(status);
    expect(acks).toEqual([{ taskId: 't1', updateUuid: status.updateUuid }]);
  });

  it('subscribes again with its framework id after the connection drops', async () => {
    const s = scheduler();
    await s.start();
    const again = new Promise((resolve) => s.once('subscribed', resolve));
    // The connection drops (as when the control plane restarts), not a namespace disconnect.
    peers[0].conn.close();
    await again;
    expect(subscriptions).toEqual([{ name: 'sdk-test' }, { name: 'sdk-test', frameworkId: 'fw-1' }]);
  });

  it('holds calls made while it reconnects on one wait for the next subscription, and sends them once subscribed', async () => {
    const s = scheduler();
    await s.start();
    const again = new Promise((resolve) => s.once('subscribed', resolve));
    peers[0].conn.close();
    await until(() => !s.connected);
    // Many calls while reconnecting: one listener waits for them all (no listener per call).
    const calls = Array.from({ length: 25 }, () => s.reconcile(['t1']));
    expect(s.listenerCount('subscribed')).toBe(2);
    await again;
    await Promise.all(calls);
    expect(reconciled.length).toBe(25);
    expect(s.listenerCount('subscribed')).toBe(0);
  });

  it("turns a refused call into a SchedulerError with the protocol's code, and a call nobody answers into TIMEOUT", async () => {
    const s = scheduler({ callTimeoutMs: 200 });
    await s.start();
    await expect(s.decline(offer.id)).rejects.toMatchObject({ name: 'SchedulerError', code: 'OFFER_STALE' });
    await expect(s.kill('t1')).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  const launchT1 = (s: Scheduler) =>
    s.launch(offer, [{ taskId: 't1', name: 't1', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 1 }] }]);

  it('reports a launch nobody answered as unknown, not failed, and reconciles its tasks', async () => {
    const s = scheduler({ callTimeoutMs: 200 });
    await s.start();
    const failure: unknown = await launchT1(s).catch((err: unknown) => err);
    expect(failure).toMatchObject({ name: 'SchedulerError', code: LAUNCH_UNKNOWN, details: { taskIds: ['t1'] } });
    await until(() => reconciled.length === 1);
    expect(reconciled).toEqual([['t1']]);
  });

  it('ends a launch in flight when the connection drops, as unknown, and reconciles its tasks once subscribed again', async () => {
    const s = scheduler({ callTimeoutMs: 60_000 });
    await s.start();
    const launched = launchT1(s).catch((err: unknown) => err);
    await until(() => peers.length === 1);
    const startedAt = Date.now();
    peers[0].conn.close();
    expect(await launched).toMatchObject({ code: LAUNCH_UNKNOWN, details: { taskIds: ['t1'] } });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    await until(() => reconciled.length === 1);
    expect([reconciled, subscriptions.at(-1)]).toEqual([[['t1']], { name: 'sdk-test', frameworkId: 'fw-1' }]);
  });

  it('fails to start with the authentication code, without retrying, when the token is refused', async () => {
    const s = scheduler({ token: 'wrong' });
    const failure: unknown = await s.start().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SchedulerError);
    expect(failure).toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
    expect(s.connected).toBe(false);
  });

  it('gives up starting after timeoutMs when no control plane answers, naming it and the last error, and retries no more', async () => {
    // A port nothing listens on.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const s = scheduler({ master: nowhere });
    const failure: unknown = await s.start({ timeoutMs: 300 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SchedulerError);
    expect(failure).toMatchObject({ code: 'UNREACHABLE' });
    expect((failure as Error).message).toMatch(new RegExp(`^no control plane answered within 0.3 s: ${nowhere} \\(.*ECONNREFUSED`));
    expect(s.connected).toBe(false);
    expect((s as unknown as { socket: { active: boolean } }).socket.active).toBe(false);
  });

  it('starts within timeoutMs as without it when the control plane answers', async () => {
    const s = scheduler();
    expect(await s.start({ timeoutMs: 5_000 })).toEqual({ frameworkId: 'fw-1', heartbeatIntervalSeconds: 15 });
    expect(s.connected).toBe(true);
  });
});
