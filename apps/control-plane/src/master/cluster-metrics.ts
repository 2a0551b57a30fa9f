/**
 * The cluster as Prometheus gauges, read from the leader's memory at each scrape (no SQL): agents,
 * frameworks, live tasks, outstanding offers and filters, and per role the dominant share, the
 * resources its tasks use and its offers hold, and its quota against what it consumes; persistent
 * volumes (how many, in use or idle, and their disk). On a
 * standby the master's state is empty, so these have no series (or 0) there.
 */
import { Resources } from '@arbiter/allocator';
import type { LoadedModules } from '@arbiter/modules';
import { Inject, Injectable } from '@nestjs/common';
import { LOADED_MODULES } from '../config/config.modules';
import { Gauge } from 'prom-client';
import { ClusterState } from './cluster-state';
import { revocableOn } from './revocable';
import { Metrics } from '../health/metrics';
import { volumeKeyOf } from './volume-catalog';

/** Bytes in a MB, Mesos's unit of disk. */
const MB = 1024 * 1024;

@Injectable()
export class ClusterMetrics {
  constructor(metrics: Metrics, state: ClusterState, @Inject(LOADED_MODULES) modules: LoadedModules) {
    const registers = [metrics.registry];
    // Agents and frameworks the leader knows, connected or not.
    const connections = (name: string, help: string, sessions: () => Iterable<{ socket?: unknown }>) =>
      new Gauge({
        name,
        help,
        labelNames: ['connection'] as const,
        registers,
        collect() {
          let [connected, disconnected] = [0, 0];
          for (const s of sessions())
            if (s.socket) connected++;
            else disconnected++;
          this.set({ connection: 'connected' }, connected);
          this.set({ connection: 'disconnected' }, disconnected);
        },
      });
    connections('arbiter_agents', 'agents the leader knows, connected or not', () => state.agents.values());
    connections('arbiter_frameworks', 'frameworks the leader knows (not completed), connected or within their failover timeout', () =>
      state.frameworks.values(),
    );
    new Gauge({
      name: 'arbiter_tasks',
      help: 'live (not terminal) tasks by state',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const t of state.liveTasks.all()) counts.set(t.state, (counts.get(t.state) ?? 0) + 1);
        for (const [s, n] of counts) this.set({ state: s }, n);
      },
    });
    new Gauge({
      name: 'arbiter_executors_running',
      help: 'executors running on agents (their resources accounted to their frameworks)',
      registers,
      collect() {
        this.set(state.executors.size);
      },
    });
    new Gauge({
      name: 'arbiter_offers_outstanding',
      help: 'offers made and not yet answered, rescinded or expired',
      registers,
      collect() {
        this.set(state.offers.size);
      },
    });
    new Gauge({
      name: 'arbiter_offer_filters',
      help: 'offer filters frameworks hold (declines with refuse seconds)',
      registers,
      collect() {
        this.set(state.hasAllocator ? state.allocator.filterCount() : 0);
      },
    });
    new Gauge({
      name: 'arbiter_role_dominant_share',
      help: "each role's weighted dominant share, as the allocator sorts roles",
      labelNames: ['role'] as const,
      registers,
      collect() {
        this.reset();
        if (!state.hasAllocator) return;
        for (const [role, share] of Object.entries(state.allocator.shares().roles)) this.set({ role }, share);
      },
    });
    new Gauge({
      name: 'arbiter_role_resources',
      help: 'scalar resources per role: allocated (used by its live tasks) or offered (in outstanding offers)',
      labelNames: ['role', 'resource', 'kind'] as const,
      registers,
      collect() {
        this.reset();
        const add = (totals: Map<string, Map<string, number>>, role: string, r: Resources) => {
          let m = totals.get(role);
          if (!m) totals.set(role, (m = new Map<string, number>()));
          for (const [name, v] of r.scalarQuantities()) m.set(name, (m.get(name) ?? 0) + v);
        };
        const allocated = new Map(state.liveTasks.usedByRole());
        const offered = new Map<string, Map<string, number>>();
        for (const o of state.offers.values()) add(offered, o.role, o.resources);
        for (const [kind, totals] of [
          ['allocated', allocated],
          ['offered', offered],
        ] as const)
          for (const [role, m] of totals) for (const [resource, v] of m) this.set({ role, resource, kind }, v);
      },
    });
    new Gauge({
      name: 'arbiter_role_quota',
      help: "per top-level role with quota: its guarantee and limit, and what it consumes (Mesos's quota accounting)",
      labelNames: ['role', 'resource', 'kind'] as const,
      registers,
      collect() {
        this.reset();
        if (!state.hasAllocator) return;
        for (const [role, q] of Object.entries(state.allocator.quotaOf())) {
          for (const [resource, v] of Object.entries(q.guarantees)) this.set({ role, resource, kind: 'guarantee' }, v);
          for (const [resource, v] of Object.entries(q.limits)) this.set({ role, resource, kind: 'limit' }, v);
          for (const [resource, v] of Object.entries(state.allocator.quotaConsumed(role)))
            this.set({ role, resource, kind: 'consumed' }, v);
        }
      },
    });
    // Oversubscription (docs/modules.md): the revocable resources agents report, and how much of them tasks and offers hold.
    new Gauge({
      name: 'arbiter_revocable_resources',
      help: "oversubscribed (revocable) scalar resources: the agents' total (from their estimators), and the part allocated to tasks and offers",
      labelNames: ['resource', 'kind'] as const,
      registers,
      collect() {
        this.reset();
        if (!state.hasAllocator) return;
        let allocated = Resources.empty();
        let total = Resources.empty();
        for (const agent of state.agents.values()) {
          const on = revocableOn(state, agent.id);
          if (!on) continue;
          allocated = allocated.plus(on.used).plus(on.offered);
          total = total.plus(on.total);
        }
        for (const [resource, v] of total.scalarQuantities()) this.set({ resource, kind: 'total' }, v);
        for (const [resource, v] of allocated.scalarQuantities()) this.set({ resource, kind: 'allocated' }, v);
      },
    });
    // Persistent volumes on the agents in the allocator: how many, in use by a live task or executor or not, and their disk.
    const volumes = () => {
      const counts = { in_use: 0, idle: 0 };
      let bytes = 0;
      if (!state.hasAllocator) return { counts, bytes };
      for (const [agentId, onAgent] of state.volumes.agents()) {
        if (!state.allocator.hasAgent(agentId)) continue;
        const used = new Set<string>();
        for (const holder of [...state.liveTasks.onAgent(agentId), ...state.executors.onAgent(agentId)])
          for (const e of holder.resources) if (e.volume && e.reservation) used.add(volumeKeyOf(e.reservation, e.volume));
        for (const [key, v] of onAgent) {
          counts[used.has(key) ? 'in_use' : 'idle']++;
          bytes += v.disk * MB;
        }
      }
      return { counts, bytes };
    };
    new Gauge({
      name: 'arbiter_persistent_volumes',
      help: 'persistent volumes on the agents the leader knows, by state: in_use (a live task or executor holds it) or idle',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const { counts } = volumes();
        this.set({ state: 'in_use' }, counts.in_use);
        this.set({ state: 'idle' }, counts.idle);
      },
    });
    new Gauge({
      name: 'arbiter_persistent_volume_bytes',
      help: 'disk reserved by persistent volumes on the agents the leader knows, in bytes',
      registers,
      collect() {
        this.set(volumes().bytes);
      },
    });
    // Modules (docs/modules.md): hook calls, and failures and timeouts of hooks and policies, per module and point.
    new Gauge({
      name: 'arbiter_module_calls',
      help: "calls of modules' hooks, and their failures (a throw, a rejection, a wrong answer: hooks and allocator policies) and timeouts, since start",
      labelNames: ['module', 'point', 'outcome'] as const,
      registers,
      collect() {
        this.reset();
        for (const c of modules.counters.all()) {
          this.set({ module: c.module, point: c.point, outcome: 'called' }, c.calls);
          this.set({ module: c.module, point: c.point, outcome: 'failed' }, c.failures);
          this.set({ module: c.module, point: c.point, outcome: 'timed_out' }, c.timeouts);
        }
      },
    });
  }
}
