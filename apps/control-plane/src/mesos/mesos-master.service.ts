/**
 * Mesos's read-only master endpoints, for scripts and dashboards written for a Mesos master:
 * /master/state, /master/frameworks, /master/slaves, /master/roles, /master/tasks and
 * /metrics/snapshot, in Mesos's JSON shapes, built from the same services as the REST API (so
 * the caller's view ACLs apply, and any replica answers). docs/mesos-compat.md lists the fields
 * filled; the rest are left out rather than invented.
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { Database } from '../database/database.service';
import type { ResourceEntry } from '@arbiter/contracts';
import { isTerminalTaskState, mesosTaskState } from '@arbiter/contracts';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { AclsService } from '../acls/acls.service';
import { AgentsService } from '../agents/agents.service';
import type { AgentViewDto } from '../agents/agents.dto';
import { AgentStatus } from '../agents/agent.entity';
import type { Actor } from '../auth/auth.actor';
import { ClusterService } from '../cluster/cluster.service';
import type { FrameworkDto } from '../frameworks/frameworks.dto';
import { FrameworkState } from '../frameworks/framework.entity';
import { FrameworksService } from '../frameworks/frameworks.service';
import type { ExecutorEntity } from '../executors/executor.entity';
import { ExecutorsService } from '../executors/executors.service';
import { mesosStateExecutor } from './mesos-executor-codec';
import { toMesosContainer } from './mesos-container-codec';
import { mesosCheckStatus } from './mesos-checks-codec';
import { Metrics } from '../health/metrics';
import { Leadership } from '../leadership/leadership.service';
import { RolesService } from '../roles/roles.service';
import { toMesosDiscovery } from './mesos-labels-codec';
import type { TaskDto } from '../tasks/tasks.dto';
import { TasksService } from '../tasks/tasks.service';
import { MESOS_STAR } from './mesos-codec';
import { buildInfo, flagsOf } from './mesos-build';

/** Largest number of agents, frameworks or tasks in one answer (Mesos caps its lists too). */
const MAX_ITEMS = 10_000;
/** Ended tasks kept per framework in its `completed_tasks` (Mesos's --max_completed_tasks_per_framework). */
const MAX_COMPLETED_TASKS = 1000;
/** Ended executors listed per framework, the last started first (Mesos's --max_completed_executors_per_framework, 150). */
const MAX_COMPLETED_EXECUTORS = 150;

const seconds = (iso: string | null) => (iso ? Date.parse(iso) / 1000 : undefined);

/** Resources as Mesos's JSON model has them: scalars by name, ranges as `[a-b, c-d]`, sets as `{a, b}`. */
export function resourceMap(entries: readonly ResourceEntry[]): Record<string, number | string> {
  const out: Record<string, number | string> = { cpus: 0, mem: 0, disk: 0, gpus: 0 };
  const ranges = new Map<string, string[]>();
  for (const e of entries) {
    if (e.ranges) ranges.set(e.name, [...(ranges.get(e.name) ?? []), ...e.ranges.map(([b, x]) => `${b}-${x}`)]);
    else if (e.set) out[e.name] = `{${e.set.join(', ')}}`;
    else out[e.name] = Math.round(((Number(out[e.name]) || 0) + (e.value ?? 0)) * 1000) / 1000;
  }
  for (const [name, list] of ranges) out[name] = `[${list.join(', ')}]`;
  return out;
}

const scalars = (map: Record<string, number>) => ({ cpus: 0, mem: 0, disk: 0, gpus: 0, ...map });

@Injectable()
export class MesosMaster {
  private readonly started = Date.now() / 1000;

  constructor(
    private readonly agents: AgentsService,
    private readonly frameworks: FrameworksService,
    private readonly tasks: TasksService,
    private readonly roleService: RolesService,
    private readonly cluster: ClusterService,
    private readonly metrics: Metrics,
    private readonly leadership: Leadership,
    private readonly acls: AclsService,
    private readonly executors: ExecutorsService,
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Healthy while the database answers (within half a second), as /health says. */
  async healthy(): Promise<boolean> {
    try {
      await this.db.ping(500);
      return true;
    } catch {
      return false;
    }
  }

  /** Mesos's /master/flags: the settings, secrets left out (mesos-build.ts); the get_endpoints ACL decides who reads them. */
  async flags(actor: Actor): Promise<Record<string, string>> {
    await this.acls.authorize(actor, 'get_endpoints', '/master/flags', 'read /master/flags');
    return flagsOf(this.config);
  }

  /** The leader's URL (this replica's when it leads); null while none is known. */
  get leader(): string | null {
    return this.leadership.isLeader ? this.leadership.url : this.leadership.leaderUrl;
  }

  private task(t: TaskDto): Record<string, unknown> {
    return {
      id: t.taskId,
      name: t.name,
      framework_id: t.frameworkId,
      executor_id: '',
      slave_id: t.agentId,
      agent_id: t.agentId,
      state: mesosTaskState(t.state),
      resources: resourceMap(t.resources),
      role: t.role,
      statuses: [
        {
          state: mesosTaskState(t.state),
          timestamp: seconds(t.updatedAt),
          ...(t.healthy !== null ? { healthy: t.healthy } : {}),
          ...(t.checkStatus ? { check_status: mesosCheckStatus(t.checkStatus) } : {}),
        },
      ],
      // As Mesos writes them: labels as a list of { key, value }, discovery as its DiscoveryInfo.
      ...(t.labels.length ? { labels: t.labels } : {}),
      ...(t.discovery ? { discovery: toMesosDiscovery(t.discovery) } : {}),
      // Its ContainerInfo as Mesos writes it, and (Arbiter's own) the image its agent reported running.
      ...(t.container ? { container: toMesosContainer(t.container) } : {}),
      ...(t.containerImage ? { arbiter_container_image: t.containerImage } : {}),
    };
  }

  private framework(f: FrameworkDto, tasks: TaskDto[], executors: ExecutorEntity[], ended: ExecutorEntity[]): Record<string, unknown> {
    const mine = tasks.filter((t) => t.frameworkId === f.id);
    const live = mine.filter((t) => !isTerminalTaskState(t.state));
    return {
      id: f.id,
      name: f.name,
      user: f.user ?? '',
      hostname: f.hostname ?? '',
      checkpoint: f.checkpoint,
      principal: f.principal ?? undefined,
      roles: f.roles,
      role: f.roles.length === 1 ? f.roles[0] : MESOS_STAR,
      suppressed_roles: f.suppressedRoles,
      capabilities: f.capabilities,
      active: f.state === FrameworkState.ACTIVE,
      connected: f.connected,
      recovered: false,
      failover_timeout: f.failoverTimeoutSeconds,
      registered_time: seconds(f.registeredAt),
      unregistered_time: seconds(f.completedAt),
      webui_url: f.webuiUrl ?? '',
      used_resources: scalars(f.used),
      resources: scalars(f.used),
      offered_resources: scalars({}),
      tasks: live.map((t) => this.task(t)),
      completed_tasks: mine
        .filter((t) => isTerminalTaskState(t.state))
        .slice(0, MAX_COMPLETED_TASKS)
        .map((t) => this.task(t)),
      unreachable_tasks: [],
      offers: [],
      executors: executors.filter((e) => e.frameworkId === f.id).map((e) => mesosStateExecutor(e, resourceMap(e.resources))),
      completed_executors: ended
        .filter((e) => e.frameworkId === f.id)
        .slice(0, MAX_COMPLETED_EXECUTORS)
        .map((e) => mesosStateExecutor(e, resourceMap(e.resources))),
      // Arbiter's own: which protocol the framework speaks.
      arbiter_protocol: f.protocol,
    };
  }

  private slave(a: AgentViewDto): Record<string, unknown> {
    const port = Number(a.address?.split(':').pop() ?? 0) || 0;
    return {
      id: a.id,
      pid: `slave(1)@${a.address ?? `${a.hostname}:${port}`}`,
      hostname: a.hostname,
      port,
      resources: resourceMap(a.resources),
      used_resources: scalars(a.usage.used),
      offered_resources: scalars(a.usage.offered),
      reserved_resources: scalars(a.usage.reserved),
      unreserved_resources: resourceMap(a.resources.filter((r) => r.reservation === undefined || r.reservation === MESOS_STAR)),
      attributes: a.attributes,
      active: a.status === AgentStatus.REACHABLE,
      deactivated: !a.activated,
      version: a.version ?? '',
      registered_time: seconds(a.firstSeenAt),
      capabilities: [],
      // Arbiter's own: what the agent can contain tasks with (Mesos shows its agents' `flags`; there are none here).
      arbiter_capabilities: a.capabilities,
      ...(a.drainState ? { drain_info: { state: a.drainState } } : {}),
    };
  }

  /** The agents whose hostname the view_agents ACL lets the actor see. */
  async slaves(actor: Actor): Promise<{ slaves: Array<Record<string, unknown>>; recovered_slaves: [] }> {
    const page = await this.agents.list({}, { field: 'hostname', descending: false }, MAX_ITEMS, 0, actor);
    return { slaves: page.items.filter((a) => a.status !== AgentStatus.GONE).map((a) => this.slave(a)), recovered_slaves: [] };
  }

  async frameworkLists(actor: Actor): Promise<{ frameworks: unknown[]; completed_frameworks: unknown[]; unregistered_frameworks: [] }> {
    const [page, tasks, executors, ended] = await Promise.all([
      this.frameworks.list({}, MAX_ITEMS, 0, actor),
      this.tasks.list({}, MAX_ITEMS, 0, actor).then((p) => p.items),
      this.executors.running(actor, MAX_ITEMS),
      this.executors.ended(actor, MAX_ITEMS),
    ]);
    return {
      frameworks: page.items.filter((f) => f.state !== FrameworkState.COMPLETED).map((f) => this.framework(f, tasks, executors, ended)),
      completed_frameworks: page.items.filter((f) => f.state === FrameworkState.COMPLETED).map((f) => this.framework(f, tasks, [], ended)),
      unregistered_frameworks: [],
    };
  }

  async taskList(actor: Actor, limit: number, offset: number): Promise<{ tasks: unknown[] }> {
    const page = await this.tasks.list({}, limit, offset, actor);
    return { tasks: page.items.map((t) => this.task(t)) };
  }

  async roles(actor: Actor): Promise<{ roles: unknown[] }> {
    const roles = await this.roleService.roles(actor);
    return {
      roles: roles.map((r) => ({
        name: r.path,
        weight: r.weight,
        frameworks: r.frameworks,
        resources: scalars(r.allocated),
        allocated: scalars(r.allocated),
        reserved: scalars(r.reserved),
        ...(r.quota ? { quota: { role: r.path, guarantee: r.quota.guarantees, limit: r.quota.limits, consumed: r.allocated } } : {}),
      })),
    };
  }

  async state(actor: Actor): Promise<Record<string, unknown>> {
    const [slaves, frameworks] = await Promise.all([this.slaves(actor), this.frameworkLists(actor)]);
    const leader = this.leader;
    const url = new URL(this.leadership.url);
    const { arbiter_version, ...build } = buildInfo();
    return {
      ...build,
      arbiter: true,
      arbiter_version,
      id: this.leadership.url,
      pid: `master@${url.host}`,
      hostname: url.hostname,
      start_time: this.started,
      ...(this.leadership.isLeader ? { elected_time: this.started } : {}),
      leader: leader ? `master@${new URL(leader).host}` : '',
      ...(leader ? { leader_info: { id: leader, hostname: new URL(leader).hostname, port: Number(new URL(leader).port) } } : {}),
      activated_slaves: slaves.slaves.filter((s) => s.active && !s.deactivated).length,
      deactivated_slaves: slaves.slaves.filter((s) => s.deactivated).length,
      unreachable_slaves: slaves.slaves.filter((s) => !s.active).length,
      slaves: slaves.slaves,
      ...frameworks,
      orphan_tasks: [],
      flags: this.acls.allows(actor, 'get_endpoints', '/master/flags') ? flagsOf(this.config) : {},
    };
  }

  /**
   * Mesos's /master/state-summary: each agent and framework with its resources and its tasks
   * counted by state, without the tasks themselves.
   */
  async summary(actor: Actor): Promise<Record<string, unknown>> {
    const [slaves, lists] = await Promise.all([this.slaves(actor), this.frameworkLists(actor)]);
    const all = [...lists.frameworks, ...lists.completed_frameworks] as Array<Record<string, unknown>>;
    const byAgent = new Map<string, Map<string, number>>();
    const frameworksOn = new Map<string, Set<string>>();
    const frameworks = all.map((f) => {
      const counts: Record<string, number> = {};
      const agents = new Set<string>();
      for (const t of [...(f.tasks as Array<Record<string, unknown>>), ...(f.completed_tasks as Array<Record<string, unknown>>)]) {
        const state = String(t.state);
        const agent = String(t.slave_id);
        counts[state] = (counts[state] ?? 0) + 1;
        agents.add(agent);
        const onAgent = byAgent.get(agent) ?? new Map<string, number>();
        onAgent.set(state, (onAgent.get(state) ?? 0) + 1);
        byAgent.set(agent, onAgent);
        frameworksOn.set(agent, (frameworksOn.get(agent) ?? new Set()).add(String(f.id)));
      }
      return {
        id: f.id,
        name: f.name,
        pid: '',
        used_resources: f.used_resources,
        offered_resources: f.offered_resources,
        capabilities: f.capabilities,
        hostname: f.hostname,
        webui_url: f.webui_url,
        active: f.active,
        connected: f.connected,
        ...counts,
        slave_ids: [...agents],
      };
    });
    const url = new URL(this.leadership.url);
    return {
      hostname: url.hostname,
      slaves: slaves.slaves.map((s) => {
        const { capabilities: _c, arbiter_capabilities: _a, ...rest } = s;
        return {
          ...rest,
          ...Object.fromEntries(byAgent.get(String(s.id)) ?? []),
          framework_ids: [...(frameworksOn.get(String(s.id)) ?? [])],
        };
      }),
      frameworks,
    };
  }

  /**
   * Mesos's metric names this control plane can fill, from its Prometheus metrics and the
   * cluster summary (docs/mesos-compat.md names each one's source).
   */
  async snapshot(actor: Actor): Promise<Record<string, number>> {
    await this.acls.authorize(actor, 'get_endpoints', '/metrics/snapshot', 'read /metrics/snapshot');
    const seeRole = (role: unknown) => this.acls.allows(actor, 'view_roles', String(role));
    const out: Record<string, number> = {};
    const [metrics, summary] = await Promise.all([this.metrics.registry.getMetricsAsJSON(), this.cluster.summary()]);
    const byName = new Map<string, MetricObjectWithValues<MetricValue<string>>>(metrics.map((m) => [m.name, m]));
    const values = (name: string) => byName.get(name)?.values ?? [];
    const value = (name: string, labels: Record<string, string> = {}) =>
      values(name)
        .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
        .reduce((sum, v) => sum + v.value, 0);
    out['master/elected'] = this.leadership.isLeader ? 1 : 0;
    out['master/uptime_secs'] = Date.now() / 1000 - this.started;
    out['master/slaves_active'] = summary.agents.reachable;
    out['master/slaves_connected'] = value('arbiter_agents', { connection: 'connected' });
    out['master/slaves_disconnected'] = value('arbiter_agents', { connection: 'disconnected' });
    out['master/frameworks_active'] = summary.frameworks.active;
    out['master/frameworks_connected'] = value('arbiter_frameworks', { connection: 'connected' });
    out['master/frameworks_disconnected'] = value('arbiter_frameworks', { connection: 'disconnected' });
    for (const v of values('arbiter_tasks')) out[`master/tasks_${String(v.labels.state).toLowerCase()}`] = v.value;
    for (const v of values('arbiter_task_ends_total')) {
      const key = `master/tasks_${String(v.labels.state).toLowerCase()}`;
      out[key] = (out[key] ?? 0) + v.value;
    }
    out['master/outstanding_offers'] = summary.outstandingOffers;
    out['master/valid_status_updates'] = value('arbiter_status_updates_total');
    out['master/messages_acknowledge_status_update'] = value('arbiter_acknowledgements_total');
    for (const r of summary.resources) {
      out[`master/${r.name}_total`] = r.total;
      out[`master/${r.name}_used`] = r.used;
      out[`master/${r.name}_percent`] = r.total > 0 ? r.used / r.total : 0;
      out[`allocator/mesos/resources/${r.name}/total`] = r.total;
      out[`allocator/mesos/resources/${r.name}/offered_or_allocated`] = r.used + r.offered;
    }
    const runs = value('arbiter_allocation_cycles_total');
    out['allocator/mesos/allocation_runs'] = runs;
    const histogram = values('arbiter_allocation_cycle_duration_seconds') as Array<MetricValue<string> & { metricName?: string }>;
    const sum = histogram.find((v) => v.metricName?.endsWith('_sum'))?.value ?? 0;
    const count = histogram.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
    out['allocator/mesos/allocation_run_ms/count'] = count;
    if (count > 0) out['allocator/mesos/allocation_run_ms/mean'] = (sum / count) * 1000;
    for (const v of values('arbiter_role_dominant_share'))
      if (seeRole(v.labels.role)) out[`allocator/mesos/roles/${String(v.labels.role)}/shares/dominant`] = v.value;
    for (const v of values('arbiter_role_quota')) {
      if (!seeRole(v.labels.role)) continue;
      const kind = String(v.labels.kind);
      const name = kind === 'consumed' ? 'offered_or_allocated' : kind;
      out[`allocator/mesos/quota/roles/${String(v.labels.role)}/resources/${String(v.labels.resource)}/${name}`] = v.value;
    }
    return out;
  }
}
