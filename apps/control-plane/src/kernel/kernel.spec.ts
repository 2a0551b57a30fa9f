import { Kernel } from './kernel';

/** A promise with its resolve, to hold work open until the test lets it finish. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Kernel', () => {
  it('runs serial work one piece at a time, in arrival order, even when one fails', async () => {
    const k = new Kernel();
    const log: string[] = [];
    const first = gate();
    const a = k.serial(async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
    });
    const b = k.serial(() => Promise.reject(new Error('b failed')));
    const c = k.serial(() => {
      log.push('c');
      return Promise.resolve(3);
    });
    await tick();
    expect(log).toEqual(['a start']);
    expect(k.pendingWork).toBe(3);
    first.open();
    await a;
    await expect(b).rejects.toThrow('b failed');
    await expect(c).resolves.toBe(3);
    expect(log).toEqual(['a start', 'a end', 'c']);
    expect(k.pendingWork).toBe(0);
  });

  it('runs each write lane in order and the lanes side by side', async () => {
    const k = new Kernel();
    const log: string[] = [];
    const held = gate();
    const slow = k.write('background', async () => {
      await held.promise;
      log.push('background 1');
    });
    const behind = k.write('background', () => Promise.resolve(log.push('background 2')));
    const launch = k.write('launches', () => Promise.resolve(log.push('launch')));
    await launch;
    expect(log).toEqual(['launch']);
    expect(k.pendingWrites).toBe(2);
    held.open();
    await Promise.all([slow, behind]);
    expect(log).toEqual(['launch', 'background 1', 'background 2']);
  });

  it('starts exclusive work only once the writes handed over before it have settled, in every lane', async () => {
    const k = new Kernel();
    const log: string[] = [];
    const held = gate();
    void k.write('statuses', async () => {
      await held.promise;
      log.push('write');
    });
    void k.write('launches', () => Promise.reject(new Error('a failed write still settles')));
    const exclusive = k.exclusive(() => Promise.resolve(log.push('exclusive')));
    const serialAfter = k.serial(() => Promise.resolve(log.push('serial after')));
    await tick();
    expect(log).toEqual([]);
    held.open();
    await Promise.all([exclusive, serialAfter]);
    expect(log).toEqual(['write', 'exclusive', 'serial after']);
  });

  it('groups the calls that arrive while a batch is written into the next batch', async () => {
    const k = new Kernel();
    const batches: number[][] = [];
    const held = gate();
    const batch = k.batch<number, number>('statuses', async (entries) => {
      batches.push(entries.map((e) => e.item));
      if (batches.length === 1) await held.promise;
      for (const e of entries) e.resolve(e.item * 10);
    });
    const first = batch.push(1);
    await tick();
    const rest = [batch.push(2), batch.push(3), batch.push(4)];
    expect(batch.size).toBe(3);
    // A batch flushed in the serial order waits for no lane.
    const serial = k.batch<number, number>('serial', () => held.promise);
    void serial.push(5);
    expect(k.waitingForLanes).toBe(3);
    held.open();
    await expect(Promise.all([first, ...rest])).resolves.toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('fails the entries a failing flush left unsettled, and keeps the answers it gave', async () => {
    const k = new Kernel();
    const batch = k.batch<string, string>('serial', (entries) => {
      entries[0].resolve('answered');
      return Promise.reject(new Error('flush failed'));
    });
    const [a, b] = [batch.push('a'), batch.push('b')];
    await expect(a).resolves.toBe('answered');
    await expect(b).rejects.toThrow('flush failed');
    // The next call is a new batch.
    const c = k.batch<string, string>('exclusive', (entries) => {
      for (const e of entries) e.resolve(e.item);
      return Promise.resolve();
    });
    await expect(c.push('c')).resolves.toBe('c');
  });

  it('starts each term with fresh per-term state and batches: what an ended term booked holds nothing up', async () => {
    const k = new Kernel();
    k.restart();
    let made = 0;
    const state = k.perTerm(() => ({ n: ++made }));
    expect(state()).toBe(state());
    const flushed: string[] = [];
    const batch = k.batch<string, string>('serial', (entries) => {
      for (const e of entries) {
        flushed.push(e.item);
        e.resolve(e.item);
      }
      return Promise.resolve();
    });
    // The term's serial order is stuck (a write that never returns), with a batch booked behind it.
    void k.serial(() => new Promise<never>(() => undefined));
    void batch.push('stuck');
    expect(batch.size).toBe(1);
    k.abandon();
    k.restart();
    expect(state().n).toBe(2);
    expect(batch.size).toBe(0);
    await expect(batch.push('next term')).resolves.toBe('next term');
    expect(flushed).toEqual(['next term']);
  });

  it('continues after a commit within its term only', async () => {
    const k = new Kernel();
    k.restart();
    const log: string[] = [];
    const first = gate();
    k.afterCommit(first.promise, () => log.push('committed'));
    k.afterCommit(
      Promise.reject(new Error('refused')),
      () => log.push('never'),
      (err) => log.push(String(err)),
    );
    first.open();
    await tick();
    expect([...log].sort()).toEqual(['Error: refused', 'committed']);
    const late = gate();
    k.afterCommit(late.promise, () => log.push('after the term'));
    k.abandon();
    late.open();
    await tick();
    const next = gate();
    k.restart();
    k.afterCommit(next.promise, () => log.push('next term'));
    next.open();
    await tick();
    expect(log.slice(2)).toEqual(['next term']);
  });

  it('stop waits for the work and writes in flight', async () => {
    const k = new Kernel();
    const held = gate();
    let written = false;
    void k.write('background', async () => {
      await held.promise;
      written = true;
    });
    const stopped = k.stop();
    expect(k.stopping).toBe(true);
    await tick();
    expect(written).toBe(false);
    held.open();
    await stopped;
    expect(written).toBe(true);
  });
});
