/**
 * The ordering rule, checked (docs/ARCHITECTURE.md, "The ordering rule"): the master's state
 * changes in a turn of the serial order, or once a write has committed (a lane's flush, a
 * kernel.afterCommit continuation). The kernel marks where work runs; the state's owners assert
 * it in their mutators. Only under tests (NODE_ENV=test): the mark follows the work across
 * awaits (AsyncLocalStorage), which costs every promise something.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where work runs: a turn of the serial order, or after a write has committed. */
export type Place = 'turn' | 'commit';

const places = process.env.NODE_ENV === 'test' ? new AsyncLocalStorage<Place>() : undefined;

/** Runs `work` marked as running in `place`. */
export function runIn<T>(place: Place, work: () => T): T {
  return places ? places.run(place, work) : work();
}

/** Throws (under tests) when the caller runs neither in a turn nor after a commit. */
export function assertOrdered(what: string): void {
  if (places && places.getStore() === undefined)
    throw new Error(`${what} outside the serial order: only a turn or a commit's continuation may change the master's state`);
}
