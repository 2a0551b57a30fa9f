/**
 * The fragmentation shape: a mixed workload of small and large tasks on a heterogeneous cluster,
 * replayed cycle by cycle under a placement policy (`mesos` or `pack`) with the same arrivals,
 * durations and agent-order randomness. Two frameworks in two roles: `services` runs small
 * tasks, `analytics` large ones; each launches what fits in an offer from its queue and hands
 * the rest back unfiltered. Reports the share of large tasks placed, how long they waited,
 * stranded resources (free on an agent where no waiting task fits) and the DRF fairness error
 * (how far apart the two dominant shares are while both frameworks have work waiting, as DRF
 * would have them equal).
 */
import { HierarchicalAllocator, parseResources, type Resources, seededRandom } from '../src';

export interface FragmentationOptions {
  placement: 'mesos' | 'pack';
  cycles: number;
  seed: number;
}

export interface FragmentationResult {
  shape: 'fragmentation';
  placement: 'mesos' | 'pack';
  cycles: number;
  agents: number;
  largeArrived: number;
  largePlaced: number;
  largePlacedShare: number;
  /** Mean cycles a placed large task waited from its arrival. */
  largeWaitCycles: number;
  smallArrived: number;
  smallPlaced: number;
  /** Mean share of the cluster's cpus free on agents where no waiting task fits. */
  strandedCpuShare: number;
  /** Mean |dominant share of services - of analytics| over the cycles both had work waiting. */
  fairnessError: number;
}

const SMALL = { cpus: 2, mem: 4096 };
const LARGE = { cpus: 16, mem: 65536 };
/** 10 machines of 32 cpus and 40 of 8: 640 cpus; a large task needs 16 of one machine. */
const MACHINES = [...Array.from({ length: 10 }, () => 'cpus:32;mem:131072'), ...Array.from({ length: 40 }, () => 'cpus:8;mem:32768')];

interface Task {
  kind: 'small' | 'large';
  arrived: number;
  duration: number;
}

interface Running {
  fw: string;
  role: string;
  agentId: string;
  resources: Resources;
  ends: number;
}

/** The arrivals: small tasks at about 12 a cycle, large ones about 9 every 10 cycles, for the first 80% of the run. */
function arrivals(cycles: number, seed: number): Task[][] {
  const random = seededRandom(seed);
  const out: Task[][] = [];
  for (let t = 0; t < cycles; t++) {
    const now: Task[] = [];
    if (t < cycles * 0.8) {
      const small = Math.floor(random() * 25);
      for (let i = 0; i < small; i++) now.push({ kind: 'small', arrived: t, duration: 10 + Math.floor(random() * 40) });
      if (random() < 0.9) now.push({ kind: 'large', arrived: t, duration: 20 + Math.floor(random() * 40) });
    }
    out.push(now);
  }
  return out;
}

const fits = (free: Resources, need: Record<string, number>) => Object.entries(need).every(([k, v]) => free.get(k) >= v);

export function runFragmentation(options: FragmentationOptions): FragmentationResult {
  let now = 0;
  const allocator = new HierarchicalAllocator({
    clock: { now: () => now },
    config: { placement: options.placement, minAllocatableResources: [{ cpus: 1 }] },
    random: seededRandom(options.seed),
  });
  // Interleaved: one big machine, then four small ones.
  const order: string[] = [];
  for (let b = 0, s = 10; b < 10; b++)
    order.push(`big-${b}`, `small-${s++ - 10}`, `small-${s++ - 10}`, `small-${s++ - 10}`, `small-${s++ - 10}`);
  for (const id of order) allocator.addAgent(id, parseResources(MACHINES[id.startsWith('big') ? 0 : 10]));
  const totalCpus = MACHINES.reduce((n, m) => n + parseResources(m).get('cpus'), 0);
  allocator.addFramework('services', ['services']);
  // Its typical task as the least an offer must hold (Mesos's FrameworkInfo offer_filters): no
  // offer of a machine that cannot run one.
  allocator.addFramework('analytics', ['analytics'], { offerFilters: { analytics: [LARGE] } });

  const plan = arrivals(options.cycles, options.seed);
  const queue = { small: [] as Task[], large: [] as Task[] };
  const running: Running[] = [];
  const used = new Map<string, Resources>([
    ['services', parseResources('cpus:0')],
    ['analytics', parseResources('cpus:0')],
  ]);
  const freeOn = new Map<string, Resources>(order.map((id) => [id, parseResources(MACHINES[id.startsWith('big') ? 0 : 10])]));
  let largeArrived = 0;
  let largePlaced = 0;
  let largeWait = 0;
  let smallArrived = 0;
  let smallPlaced = 0;
  let stranded = 0;
  let fairness = 0;
  let contested = 0;

  for (let t = 0; t < options.cycles; t++) {
    now = t;
    // Tasks that end give their resources back.
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i];
      if (r.ends > t) continue;
      running.splice(i, 1);
      allocator.recoverResources(r.fw, r.agentId, r.role, r.resources);
      freeOn.set(r.agentId, (freeOn.get(r.agentId) ?? r.resources).plus(r.resources));
      used.set(r.fw, (used.get(r.fw) ?? r.resources).minus(r.resources));
    }
    for (const task of plan[t]) {
      queue[task.kind].push(task);
      if (task.kind === 'large') largeArrived++;
      else smallArrived++;
    }
    const { offers } = allocator.allocate();
    for (const offer of offers) {
      const small = offer.frameworkId === 'services';
      const q = small ? queue.small : queue.large;
      const need = small ? SMALL : LARGE;
      let left = offer.resources;
      while (q.length && fits(left, need)) {
        const task = q.shift();
        if (!task) break;
        const taken = parseResources(`cpus:${need.cpus};mem:${need.mem}`);
        left = left.minus(taken);
        running.push({ fw: offer.frameworkId, role: offer.role, agentId: offer.agentId, resources: taken, ends: t + task.duration });
        freeOn.set(offer.agentId, (freeOn.get(offer.agentId) ?? taken).minus(taken));
        used.set(offer.frameworkId, (used.get(offer.frameworkId) ?? taken).plus(taken));
        if (small) smallPlaced++;
        else {
          largePlaced++;
          largeWait += t - task.arrived;
        }
      }
      // The rest goes back, unfiltered: offered again next cycle.
      allocator.recoverResources(offer.frameworkId, offer.agentId, offer.role, left, 0);
    }
    // Stranded: free cpus on agents where none of the waiting kinds of task fits.
    const waiting = [...(queue.small.length ? [SMALL] : []), ...(queue.large.length ? [LARGE] : [])];
    if (waiting.length) {
      let cpus = 0;
      for (const free of freeOn.values()) if (!waiting.some((need) => fits(free, need))) cpus += free.get('cpus');
      stranded += cpus / totalCpus;
    }
    if (queue.small.length && queue.large.length) {
      const dominant = (fw: string) => {
        const u = used.get(fw);
        return u ? Math.max(u.get('cpus') / totalCpus, u.get('mem') / (10 * 131072 + 40 * 32768)) : 0;
      };
      fairness += Math.abs(dominant('services') - dominant('analytics'));
      contested++;
    }
  }
  return {
    shape: 'fragmentation',
    placement: options.placement,
    cycles: options.cycles,
    agents: order.length,
    largeArrived,
    largePlaced,
    largePlacedShare: +(largePlaced / Math.max(1, largeArrived)).toFixed(3),
    largeWaitCycles: +(largeWait / Math.max(1, largePlaced)).toFixed(1),
    smallArrived,
    smallPlaced,
    strandedCpuShare: +(stranded / options.cycles).toFixed(3),
    fairnessError: +(fairness / Math.max(1, contested)).toFixed(3),
  };
}
