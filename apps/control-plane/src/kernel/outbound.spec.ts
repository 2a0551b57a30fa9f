import { ManualClock } from '@arbiter/test-support';
import { DRAIN_TIMEOUT_MS, Outbound } from './outbound';

/** A connection whose queue the test sets; `cuts` records why it was cut off. */
function connection() {
  const c = { bytes: 0, cuts: [] as string[] };
  return Object.assign(c, {
    queuedBytes: () => c.bytes,
    cut: (reason: string) => {
      c.bytes = 0;
      c.cuts.push(reason);
    },
  });
}

describe('Outbound', () => {
  const KIB = 1024;

  it('cuts off a connection past its bound, and forgets it', () => {
    const outbound = new Outbound({ perConnection: 100 * KIB, perPrincipal: 1000 * KIB }, new ManualClock());
    const c = connection();
    const queue = outbound.register('c', c);
    c.bytes = 100 * KIB;
    expect(queue.check()).toBe(true);
    c.bytes = 100 * KIB + 1;
    expect(queue.check()).toBe(false);
    expect(c.cuts).toEqual([stringMatching(/too slow: 102401 bytes wait/)]);
    expect(outbound.queued('c')).toBeUndefined();
    expect([outbound.connections, outbound.totalBytes()]).toEqual([0, 0]);
    // Cut once: a later check changes nothing.
    expect(queue.check()).toBe(false);
    expect(c.cuts).toHaveLength(1);
  });

  it("cuts off the connection that takes its principal's queues past their bound, and no other principal's", () => {
    const outbound = new Outbound({ perConnection: 100 * KIB, perPrincipal: 150 * KIB }, new ManualClock());
    const [a1, a2, b] = [connection(), connection(), connection()];
    const [qa1, qa2, qb] = [outbound.register('a1', a1), outbound.register('a2', a2), outbound.register('b', b)];
    qa1.claim('team-a');
    qa2.claim('team-a');
    qb.claim('team-b');
    // A later claim does not move a queue to another principal.
    qb.claim('team-a');
    a1.bytes = 80 * KIB;
    b.bytes = 90 * KIB;
    expect([qa1.check(), qb.check()]).toEqual([true, true]);
    a2.bytes = 71 * KIB;
    expect(qa2.check()).toBe(false);
    expect(a2.cuts).toEqual([stringMatching(/principal 'team-a' are too slow/)]);
    expect([a1.cuts, b.cuts]).toEqual([[], []]);
    expect(outbound.totalBytes()).toBe(170 * KIB);
  });

  it('lets a long answer wait until the queue drains, and cuts off a reader that takes nothing for DRAIN_TIMEOUT_MS', async () => {
    const clock = new ManualClock();
    const outbound = new Outbound({ perConnection: 1000 * KIB, perPrincipal: 4000 * KIB }, clock);
    const c = connection();
    const queue = outbound.register('c', c);
    expect(outbound.lowWater).toBe(250 * KIB);
    expect(await queue.drained()).toBe(true);

    c.bytes = 300 * KIB;
    expect(queue.backedUp).toBe(true);
    const reads = queue.drained();
    c.bytes = 260 * KIB;
    queue.progressed();
    c.bytes = 100 * KIB;
    queue.progressed();
    expect(await reads).toBe(true);

    c.bytes = 300 * KIB;
    const stalls = queue.drained();
    await clock.advance(DRAIN_TIMEOUT_MS - 1);
    expect(c.cuts).toEqual([]);
    await clock.advance(1);
    expect(await stalls).toBe(false);
    expect(c.cuts).toEqual([stringMatching(/took nothing for 60 s/)]);
    expect(outbound.queued('c')).toBeUndefined();
    expect(await queue.drained()).toBe(false);
  });

  it('ends the waits of a connection that goes', async () => {
    const outbound = new Outbound({ perConnection: 1000 * KIB, perPrincipal: 4000 * KIB }, new ManualClock());
    const c = connection();
    const queue = outbound.register('c', c);
    queue.claim('team-a');
    c.bytes = 500 * KIB;
    const waits = queue.drained();
    queue.release();
    expect(await waits).toBe(false);
    expect([outbound.connections, outbound.totalBytes(), c.cuts]).toEqual([0, 0, []]);
  });
});

const stringMatching = (re: RegExp): unknown => expect.stringMatching(re);
