/**
 * No agent is ever offered more than it has, through the control plane's own paths: offers
 * partly launched and the rest handed back (with or without a filter), tasks ending, an agent
 * registering again (its offers rescinded, re-added with its tasks), frameworks leaving and
 * coming back, revives and time passing, with and without a decision trace. Checked against
 * this test's own bookkeeping of offers and tasks, not the allocator's.
 */
import { HierarchicalAllocator, parseResources, type Resources, seededRandom } from '../src';

/** No resources (Resources are values: adding to it makes a new one). */
const NOTHING = parseResources('cpus:0');

/** A violation found by one seeded run, or null. */
function run(seed: number): string | null {
  const rnd = seededRandom(seed);
  let now = 0;
  const a = new HierarchicalAllocator({ clock: { now: () => now }, random: seededRandom(seed + 1) });
  const totals = new Map<string, Resources>();
  for (let i = 0; i < 4; i++) {
    const t = parseResources('cpus:2;mem:2048');
    totals.set(`ag${i}`, t);
    a.addAgent(`ag${i}`, t);
  }
  a.addFramework('alpha', ['r1']);
  a.addFramework('beta', ['r2']);
  interface Held {
    fw: string;
    role: string;
    agent: string;
    res: Resources;
  }
  let offers: Held[] = [];
  const tasks: Held[] = [];
  const task = parseResources('cpus:0.1;mem:16');
  for (let step = 0; step < 200; step++) {
    const r = rnd();
    if (r < 0.35) {
      const res = a.allocate({ trace: rnd() < 0.7 });
      for (const o of res.offers) offers.push({ fw: o.frameworkId, role: o.role, agent: o.agentId, res: o.resources });
      // What each agent holds, offered or running, summed in one pass.
      const held = new Map<string, Resources>();
      for (const h of [...offers, ...tasks]) held.set(h.agent, (held.get(h.agent) ?? NOTHING).plus(h.res));
      for (const [ag, total] of totals) {
        const used = held.get(ag) ?? NOTHING;
        if (!total.contains(used)) return `seed ${seed} step ${step}: ${ag} holds ${used.toString()} of ${total.toString()}`;
      }
    } else if (r < 0.6 && offers.length) {
      // answer an offer: launch k tasks, recover the rest
      const o = offers.splice(Math.floor(rnd() * offers.length), 1)[0];
      let rest = o.res;
      const k = Math.floor(rnd() * 3);
      for (let i = 0; i < k && rest.contains(task); i++) {
        rest = rest.minus(task);
        tasks.push({ ...o, res: task });
      }
      a.recoverResources(o.fw, o.agent, o.role, rest, rnd() < 0.4 ? 0 : rnd() < 0.5 ? 5 : 3600);
    } else if (r < 0.75 && tasks.length) {
      const t = tasks.splice(Math.floor(rnd() * tasks.length), 1)[0];
      a.recoverResources(t.fw, t.agent, t.role, t.res);
    } else if (r < 0.82) {
      // agent re-registers: its offers rescinded, re-added with its tasks
      const ag = `ag${Math.floor(rnd() * 4)}`;
      for (const o of offers.filter((x) => x.agent === ag)) a.recoverResources(o.fw, o.agent, o.role, o.res);
      offers = offers.filter((x) => x.agent !== ag);
      a.removeAgent(ag);
      a.addAgent(ag, totals.get(ag) ?? NOTHING, {
        used: tasks.filter((t) => t.agent === ag).map((t) => ({ frameworkId: t.fw, role: t.role, resources: t.res })),
      });
    } else if (r < 0.85) {
      const fw = rnd() < 0.5 ? 'alpha' : 'beta';
      a.reviveOffers(fw);
    } else if (r < 0.9) {
      const fw = rnd() < 0.5 ? 'alpha' : 'beta';
      // framework disconnects: its offers rescinded; later it comes back
      for (const o of offers.filter((x) => x.fw === fw)) a.recoverResources(o.fw, o.agent, o.role, o.res);
      offers = offers.filter((x) => x.fw !== fw);
      if (rnd() < 0.5) a.deactivateFramework(fw);
      else a.activateFramework(fw);
    } else {
      now += rnd() * 3;
    }
  }
  return null;
}

it('never offers an agent more than it has, through partial launches, re-registrations and frameworks leaving', () => {
  const violations: string[] = [];
  for (let seed = 1; seed <= 800; seed++) {
    const v = run(seed);
    if (v) violations.push(v);
  }
  expect(violations).toEqual([]);
});
