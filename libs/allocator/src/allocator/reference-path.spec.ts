import { parseResources, Resources } from '../resources';
import { DRFSorter } from '../sorter';
import { Agent } from './agent';
import { type CyclePath, FastPath } from './cycle-path';
import type { Filter } from './offer-filters';
import { ReferencePath } from './reference-path';

const r = parseResources;
const VOLUME = Resources.of([{ name: 'disk', value: 100, shared: true, volume: 'v1' }]);
const fast = new FastPath();
const reference = new ReferencePath();
const both: Array<[string, CyclePath]> = [
  ['fast', fast],
  ['reference', reference],
];

describe('cycle paths: the reference path and the fast path answer alike', () => {
  it('remember only on the fast path', () => {
    expect([fast.remembers, reference.remembers]).toEqual([true, false]);
  });

  it.each(both)('%s: a sorter order in full', (_name, path) => {
    const sorter = new DRFSorter();
    for (const c of ['c', 'a/x', 'b', 'a/y']) {
      sorter.add(c);
      sorter.activate(c);
    }
    sorter.allocated('b', 'ag', new Map([['cpus', 1000]]));
    const cursor = path.order(sorter);
    const seen: string[] = [];
    for (let c = cursor.next(); c !== undefined; c = cursor.next()) seen.push(c);
    expect(seen).toEqual(sorter.sort());
  });

  it.each([
    // caps (milli)           absentIsUnlimited  from                                     expected
    [{ cpus: 1500 }, true, 'cpus:4;mem:1024;ports:[1-2]', 'cpus:1.5;mem:1024;ports:[1-2]'],
    [{ cpus: 1500 }, false, 'cpus:4;mem:1024;ports:[1-2]', 'cpus:1.5;ports:[1-2]'],
    [{ cpus: 0 }, true, 'cpus:4;mem:1024', 'mem:1024'],
    [{ mem: 99999999 }, true, 'cpus:4;mem:1024', 'cpus:4;mem:1024'],
  ])('cut to %j (absent unlimited: %s): %s -> %s', (caps, absent, from, expected) => {
    const m = new Map(Object.entries(caps));
    for (const [, path] of both) expect(path.capScalars(r(from), m, absent).toString()).toBe(expected);
  });

  it('say alike whether a filter covers, the fast path remembering the last resources covered', () => {
    const filter: Filter = { resources: r('cpus:4;mem:4096'), installedAt: 0, refuseSeconds: 5, duration: 5 };
    const inside = r('cpus:2');
    for (const [, path] of both) expect([path.covers(filter, inside), path.covers(filter, r('cpus:5'))]).toEqual([true, false]);
    expect(filter.covers).toBe(inside);
  });

  it.each([
    ['a plain agent', 'cpus:4;mem:4096', r('cpus:1'), ''],
    ['an agent with a shared volume', 'cpus:4', r('cpus:1').plus(VOLUME), 'disk:100'],
  ])('find the shared volumes of an offer on %s', (_name, total, offer, shared) => {
    const agent = new Agent('ag', 0, total === 'cpus:4' ? r(total).plus(VOLUME) : r(total), new Map());
    for (const [, path] of both) expect(path.sharedIn(agent, offer).scalarMilli().size > 0 ? 'disk:100' : '').toBe(shared);
  });

  it.each([
    ['a plain agent', 'cpus:4;mem:4096;ports:[1-9]'],
    ['an agent with reservations', 'cpus:4;cpus(r):2;mem(q):100;ports:[1-9]'],
  ])('build the same quota-stage offer on %s', (_name, total) => {
    const agent = new Agent('ag', 0, r(total), new Map());
    const usable = agent.available.allocatableTo('r');
    const guaranteed = usable
      .unreserved()
      .scalars()
      .capScalars(new Map([['cpus', 1000]]), false);
    const rest = r('mem:10');
    const offers = both.map(([, path]) => path.quotaOffer(agent, usable, 'r', guaranteed, rest));
    expect(offers[0].equals(offers[1])).toBe(true);
  });
});
