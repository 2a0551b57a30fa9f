/**
 * A framework socket that stops reading while it reconciles 100,000 unknown ids: the answers
 * wait for it in chunks, so what is queued for it stays near the low-water mark however long it
 * hangs, and once it has taken nothing for DRAIN_TIMEOUT_MS it is cut off, what waited for it
 * freed and its framework disconnected (on a manual clock).
 */
import type { Socket as NetSocket } from 'node:net';
import { never, timeScale } from '@arbiter/test-support';
import { io } from 'socket.io-client';
import { ManualClock } from '@arbiter/test-support';
import { DRAIN_TIMEOUT_MS, Outbound } from '../../../src/kernel/outbound';
import { ClusterState } from '../../../src/master/cluster-state';
import { ADMIN_TOKEN, STARTUP_TIMEOUT_MS, controlPlaneBed } from '../../support/app';
import { defined, until } from '../../support/until';

const { closers, start: startControlPlane } = controlPlaneBed();

/** How long the control plane may take to read and check the 100,000 ids (a bound about the machine, stretched as `until`'s are). */
const READ_BOUND_MS = 100_000;

// Its timeout: a control plane to start and stop, and the large message's bound: past it, the
// wait's own message says what did not happen, not Jest's timeout.
it(
  'holds back the answers of a reconciliation for a framework socket that stops reading, then cuts it off and frees them',
  async () => {
    const clock = new ManualClock();
    // socket.io's heartbeat runs in real time, and a reader that stopped reading cannot answer
    // it: one long enough that only the drain timeout, on the manual clock, can end the connection
    // (however long the machine takes over the 100,000 ids).
    const t = await startControlPlane({ clock, config: { pingInterval: 600, pingTimeout: 600 } });
    const outbound = t.cp.app.get(Outbound);
    const state = t.cp.app.get(ClusterState);
    const socket = io(`${t.cp.url}/frameworks`, {
      auth: { token: ADMIN_TOKEN },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    closers.push(() => socket.close());
    await new Promise((resolve) => socket.once('connect', () => resolve(undefined)));
    const reply = (await socket.timeout(10_000).emitWithAck('subscribe', { name: 'hung', roles: ['r'] })) as { frameworkId?: string };
    const frameworkId = defined(reply.frameworkId);
    const id = `socket.io:${defined(socket.io.engine.id)}`;
    expect(outbound.queued(id)).toBe(0);

    // It stops reading, and asks about 100,000 tasks (some 30 MB of answers).
    (socket.io.engine.transport as unknown as { ws: { _socket: NetSocket } }).ws._socket.pause();
    socket.emit('reconcile', { tasks: Array.from({ length: 100_000 }, (_, i) => ({ taskId: `task-${i}` })) });
    // Reading and checking 100,000 ids is seconds of CPU, which a loaded machine stretches far
    // (this waits on the machine; the product's timers below run on the manual clock).
    await until(() => (outbound.queued(id) ?? 0) > outbound.lowWater, READ_BOUND_MS, 'the answers queued past the low-water mark');
    // However long it hangs (short of the drain timeout), little more than a chunk of answers waits.
    const bound = outbound.lowWater + 100 * 1024;
    await never(
      clock,
      () => (outbound.queued(id) ?? 0) > bound || state.frameworks.get(frameworkId)?.socket === undefined,
      DRAIN_TIMEOUT_MS - 1000,
    );

    await clock.advance(1000);
    await until(() => outbound.queued(id) === undefined);
    expect(outbound.totalBytes()).toBe(0);
    await until(() => state.frameworks.get(frameworkId)?.socket === undefined);
  },
  STARTUP_TIMEOUT_MS + READ_BOUND_MS * timeScale(),
);
