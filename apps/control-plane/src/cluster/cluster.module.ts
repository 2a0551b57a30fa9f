/**
 * The cluster at a glance (what the dashboard's overview shows, and what an operator's script
 * checks first): capacity, use, offers and reservations per resource over reachable agents;
 * agents, frameworks and tasks counted by state; the latest allocation cycle; and alerts, each
 * with a stable code, a sentence and the agent, framework or role it is about.
 */
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { EntityManager } from 'typeorm';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { AllocationUsageRepository } from '../allocation/allocation-usage.repository';
import { Database } from '../database/database.service';
import { ApiErrors } from '../errors/errors.dto';
import { FrameworkState } from '../frameworks/framework.entity';
import { MachineMode } from '../maintenance/maintenance-machine.entity';
import { OUTSTANDING_OFFERS_SQL } from '../offers/offers.repository';
import { ClusterState } from '../kernel/cluster-state';
import { TaskState, TERMINAL_TASK_STATES, TERMINAL_TASK_STATES_SQL } from '../tasks/task.entity';

/** Offers unanswered for longer than this are an alert: they keep resources from everyone else. */
export const HELD_OFFER_SECONDS = 60;
/** Alerts about single agents or frameworks beyond this many are summed up in one. */
const ALERTS_PER_CODE = 20;

export class ResourceSummaryDto {
  @ApiProperty({ example: 'cpus' }) name!: string;
  @ApiProperty({ description: 'total of reachable agents' }) total!: number;
  @ApiProperty({ description: 'held by live tasks' }) used!: number;
  @ApiProperty({ description: 'offered and not yet answered' }) offered!: number;
  @ApiProperty({ description: 'reserved for roles (used or not)' }) reserved!: number;
}

export class AgentCountsDto {
  @ApiProperty() total!: number;
  @ApiProperty() reachable!: number;
  @ApiProperty() unreachable!: number;
  @ApiProperty() gone!: number;
  @ApiProperty({ description: 'reachable, not offered by an operator' }) deactivated!: number;
  @ApiProperty({ description: 'draining or drained' }) draining!: number;
  @ApiProperty({ description: 'machines DOWN for maintenance' }) down!: number;
}

export class FrameworkCountsDto {
  @ApiProperty() active!: number;
  @ApiProperty({ description: 'within their failover timeout' }) disconnected!: number;
  @ApiProperty() completed!: number;
}

export class LastCycleDto {
  @ApiProperty() id!: string;
  @ApiProperty() startedAt!: string;
  @ApiProperty() durationMs!: number;
  @ApiProperty() offerCount!: number;
}

export enum AlertSeverity {
  CRITICAL = 'critical',
  WARNING = 'warning',
  INFO = 'info',
}

export class AlertTargetDto {
  @ApiProperty({ enum: ['agent', 'framework', 'role', 'cluster'] }) kind!: 'agent' | 'framework' | 'role' | 'cluster';
  @ApiProperty({ type: String, nullable: true }) id!: string | null;
}

export class AlertDto {
  @ApiProperty({ enum: AlertSeverity, enumName: 'AlertSeverity' }) severity!: AlertSeverity;
  @ApiProperty({
    example: 'AGENT_UNREACHABLE',
    description:
      'NO_AGENTS, AGENT_UNREACHABLE, AGENT_DISCONNECTED, AGENT_DEACTIVATED, AGENT_DRAINING, MACHINE_DOWN, FRAMEWORK_DISCONNECTED, OFFERS_HELD, WHITELIST_EMPTY, WHITELIST_EXCLUDES, QUOTA_OVER_CAPACITY, QUOTA_GUARANTEE_UNMET',
  })
  code!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: AlertTargetDto }) target!: AlertTargetDto;
}

export class ClusterSummaryDto {
  @ApiProperty({ type: [ResourceSummaryDto], description: 'scalar resources, by name' }) resources!: ResourceSummaryDto[];
  @ApiProperty({ type: AgentCountsDto }) agents!: AgentCountsDto;
  @ApiProperty({ type: FrameworkCountsDto }) frameworks!: FrameworkCountsDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'tasks by state (every task ever launched)',
    example: { RUNNING: 3, FINISHED: 10 },
  })
  tasks!: Record<string, number>;
  @ApiProperty({ description: 'tasks not in a terminal state' }) activeTasks!: number;
  @ApiProperty({ description: 'offers made and not yet answered' }) outstandingOffers!: number;
  @ApiProperty({ type: LastCycleDto, nullable: true, description: 'the latest recorded allocation cycle' }) lastCycle!: LastCycleDto | null;
  @ApiProperty({ type: [AlertDto], description: 'most severe first' }) alerts!: AlertDto[];
}

type Sums = Map<string, number>;
const round = (n: number) => Math.round(n * 1000) / 1000;
const LIVE = `state NOT IN ${TERMINAL_TASK_STATES_SQL}`;
const ON_REACHABLE = `agent_id IN (SELECT id FROM agents WHERE status = 'REACHABLE')`;

/** Every query of the summary: aggregates in SQL, so the summary stays cheap on large clusters. */
@Injectable()
export class ClusterRepository {
  constructor(private readonly usage: AllocationUsageRepository) {}

  async resourceSums(tx: EntityManager): Promise<{ total: Sums; used: Sums; offered: Sums; reserved: Sums }> {
    const [total, used, offered, reserved] = await Promise.all([
      this.usage.reachableCapacity(tx),
      this.usage.scalarSums(tx, `SELECT resources FROM tasks WHERE ${LIVE} AND ${ON_REACHABLE}`),
      this.usage.scalarSums(tx, `SELECT resources FROM (${OUTSTANDING_OFFERS_SQL}) o WHERE ${ON_REACHABLE}`),
      this.usage.scalarSums(tx, `SELECT resources FROM reservations WHERE ${ON_REACHABLE}`),
    ]);
    return { total, used, offered, reserved };
  }

  agents(
    tx: EntityManager,
  ): Promise<Array<{ id: string; hostname: string; status: string; activated: boolean; drain_state: string | null; last_seen_at: Date }>> {
    return tx.query(
      `SELECT id, hostname, status, activated, drain_state, last_seen_at FROM agents WHERE status <> 'GONE' ORDER BY hostname`,
    );
  }

  async goneAgents(tx: EntityManager): Promise<number> {
    return Number((await tx.query(`SELECT count(*) AS n FROM agents WHERE status = 'GONE'`))[0].n);
  }

  frameworks(tx: EntityManager): Promise<
    Array<{
      id: string;
      name: string;
      state: FrameworkState;
      disconnected_at: Date | null;
      failover_timeout_seconds: number;
      roles: string[];
      suppressed_roles: string[];
    }>
  > {
    return tx.query(
      `SELECT id, name, state, disconnected_at, failover_timeout_seconds, roles, suppressed_roles FROM frameworks WHERE state <> 'COMPLETED'`,
    );
  }

  async completedFrameworks(tx: EntityManager): Promise<number> {
    return Number((await tx.query(`SELECT count(*) AS n FROM frameworks WHERE state = 'COMPLETED'`))[0].n);
  }

  async tasksByState(tx: EntityManager): Promise<Record<string, number>> {
    const rows: Array<{ state: string; n: string }> = await tx.query(`SELECT state, count(*) AS n FROM tasks GROUP BY state`);
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  downMachines(tx: EntityManager): Promise<Array<{ hostname: string; ip: string }>> {
    return tx.query(`SELECT hostname, ip FROM maintenance_machines WHERE mode = '${MachineMode.DOWN}' ORDER BY hostname, ip`);
  }

  async whitelist(tx: EntityManager): Promise<string[] | null> {
    return (await tx.query(`SELECT hostnames FROM whitelist WHERE id = 1`))[0]?.hostnames ?? null;
  }

  quotas(tx: EntityManager): Promise<Array<{ role: string; guarantees: Record<string, number> }>> {
    return tx.query(`SELECT role, guarantees FROM quotas ORDER BY role`);
  }

  /** Scalars held on reachable agents by live tasks and outstanding offers of each top-level role and its subroles. */
  async consumedByTopRole(tx: EntityManager): Promise<Map<string, Sums>> {
    const rows: Array<{ role: string; name: string; amount: number }> = await tx.query(
      `SELECT split_part(src.role, '/', 1) AS role, e->>'name' AS name, sum((e->>'value')::float8) AS amount
         FROM (SELECT role, resources FROM tasks WHERE ${LIVE} AND ${ON_REACHABLE} UNION ALL SELECT role, resources FROM (${OUTSTANDING_OFFERS_SQL}) o WHERE ${ON_REACHABLE}) src,
              jsonb_array_elements(src.resources) e
        WHERE e ? 'value' GROUP BY 1, 2`,
    );
    const out = new Map<string, Sums>();
    for (const r of rows) out.set(r.role, (out.get(r.role) ?? new Map()).set(r.name, Number(r.amount)));
    return out;
  }

  lastCycle(tx: EntityManager): Promise<AllocationCycleEntity | null> {
    return tx.findOne(AllocationCycleEntity, { where: {}, order: { id: 'DESC' } });
  }
}

@Injectable()
export class ClusterService {
  constructor(
    private readonly db: Database,
    private readonly repo: ClusterRepository,
    private readonly master: ClusterState,
  ) {}

  async summary(): Promise<ClusterSummaryDto> {
    const tx = this.db.manager;
    const [sums, agents, gone, frameworks, completed, tasks, down, whitelist, quotas, consumed, cycle] = await Promise.all([
      this.repo.resourceSums(tx),
      this.repo.agents(tx),
      this.repo.goneAgents(tx),
      this.repo.frameworks(tx),
      this.repo.completedFrameworks(tx),
      this.repo.tasksByState(tx),
      this.repo.downMachines(tx),
      this.repo.whitelist(tx),
      this.repo.quotas(tx),
      this.repo.consumedByTopRole(tx),
      this.repo.lastCycle(tx),
    ]);
    const names = [...new Set([...sums.total.keys(), ...sums.used.keys(), ...sums.reserved.keys()])].sort();
    const reachable = agents.filter((a) => a.status === 'REACHABLE');
    const downHosts = new Set(down.map((m) => m.hostname));
    const outstanding = this.master.outstandingOffers();
    const alerts = new Alerts();

    if (!reachable.length)
      alerts.add(
        AlertSeverity.CRITICAL,
        'NO_AGENTS',
        'No agent is reachable: nothing can be offered. Start an agent with `npx arbiter agent --master URL --token T`.',
        'cluster',
        null,
      );
    for (const a of agents.filter((a) => a.status === 'UNREACHABLE')) {
      alerts.add(
        AlertSeverity.CRITICAL,
        'AGENT_UNREACHABLE',
        `Agent ${a.hostname} is unreachable since ${new Date(a.last_seen_at).toISOString()}; its tasks were marked LOST.`,
        'agent',
        a.id,
      );
    }
    for (const a of reachable.filter((a) => !this.master.isAgentConnected(a.id))) {
      alerts.add(
        AlertSeverity.WARNING,
        'AGENT_DISCONNECTED',
        `Agent ${a.hostname} is disconnected; it becomes unreachable, and its tasks LOST, unless it re-registers within the agent timeout.`,
        'agent',
        a.id,
      );
    }
    for (const a of reachable.filter((a) => a.drain_state))
      alerts.add(AlertSeverity.INFO, 'AGENT_DRAINING', `Agent ${a.hostname} is ${String(a.drain_state).toLowerCase()}.`, 'agent', a.id);
    for (const a of reachable.filter((a) => !a.activated && !a.drain_state))
      alerts.add(
        AlertSeverity.INFO,
        'AGENT_DEACTIVATED',
        `Agent ${a.hostname} is deactivated: it gets no offers until reactivated.`,
        'agent',
        a.id,
      );
    for (const m of down)
      alerts.add(
        AlertSeverity.WARNING,
        'MACHINE_DOWN',
        `Machine ${m.hostname || m.ip} is down for maintenance: its agents get no offers until maintenance stops.`,
        'agent',
        this.agentIdOf(agents, m.hostname),
      );
    for (const f of frameworks.filter((f) => f.state === FrameworkState.DISCONNECTED)) {
      const deadline = f.disconnected_at
        ? new Date(new Date(f.disconnected_at).getTime() + f.failover_timeout_seconds * 1000).toISOString()
        : null;
      alerts.add(
        AlertSeverity.WARNING,
        'FRAMEWORK_DISCONNECTED',
        `Framework ${f.name} is disconnected; its tasks are killed unless it re-subscribes${deadline ? ` by ${deadline}` : ''}.`,
        'framework',
        f.id,
      );
    }
    const heldSince = performance.now() - HELD_OFFER_SECONDS * 1000;
    const held = new Map<string, number>();
    for (const o of outstanding) if (o.createdAt <= heldSince) held.set(o.frameworkId, (held.get(o.frameworkId) ?? 0) + 1);
    for (const [frameworkId, n] of held) {
      const name = frameworks.find((f) => f.id === frameworkId)?.name ?? frameworkId;
      alerts.add(
        AlertSeverity.WARNING,
        'OFFERS_HELD',
        `Framework ${name} holds ${n} offer${n === 1 ? '' : 's'} unanswered for over ${HELD_OFFER_SECONDS} s; those resources go to no one else (set ARBITER_OFFER_TIMEOUT to rescind them).`,
        'framework',
        frameworkId,
      );
    }
    if (whitelist !== null) {
      const listed = new Set(whitelist);
      const excluded = reachable.filter((a) => !listed.has(a.hostname)).length;
      if (reachable.length && excluded === reachable.length)
        alerts.add(
          AlertSeverity.CRITICAL,
          'WHITELIST_EMPTY',
          'The whitelist names none of the reachable agents: nothing is offered.',
          'cluster',
          null,
        );
      else if (excluded)
        alerts.add(
          AlertSeverity.INFO,
          'WHITELIST_EXCLUDES',
          `The whitelist leaves out ${excluded} of ${reachable.length} reachable agents; they get no offers.`,
          'cluster',
          null,
        );
    }
    const guaranteed = new Map<string, number>();
    for (const q of quotas) for (const [k, v] of Object.entries(q.guarantees)) guaranteed.set(k, (guaranteed.get(k) ?? 0) + v);
    for (const [name, amount] of guaranteed) {
      const have = sums.total.get(name) ?? 0;
      if (amount > have + 1e-9)
        alerts.add(
          AlertSeverity.WARNING,
          'QUOTA_OVER_CAPACITY',
          `Quota guarantees add up to ${name} ${round(amount)} but reachable agents have ${round(have)}: not every guarantee can be met.`,
          'cluster',
          null,
        );
    }
    const demanding = new Set(
      frameworks
        .filter((f) => f.state === FrameworkState.ACTIVE)
        .flatMap((f) => f.roles.filter((r) => !f.suppressed_roles.includes(r)).map((r) => r.split('/')[0])),
    );
    for (const q of quotas.filter((q) => demanding.has(q.role))) {
      const short = Object.entries(q.guarantees).filter(([k, v]) => (consumed.get(q.role)?.get(k) ?? 0) + 1e-9 < v);
      if (short.length) {
        const text = short.map(([k, v]) => `${k} ${round(consumed.get(q.role)?.get(k) ?? 0)} of ${round(v)}`).join(', ');
        alerts.add(
          AlertSeverity.INFO,
          'QUOTA_GUARANTEE_UNMET',
          `Role ${q.role} holds less than its guarantee (${text}) while its frameworks want offers.`,
          'role',
          q.role,
        );
      }
    }

    const frameworkCount = (s: FrameworkState) => frameworks.filter((f) => f.state === s).length;
    return {
      resources: names.map((name) => ({
        name,
        total: round(sums.total.get(name) ?? 0),
        used: round(sums.used.get(name) ?? 0),
        offered: round(sums.offered.get(name) ?? 0),
        reserved: round(sums.reserved.get(name) ?? 0),
      })),
      agents: {
        total: agents.length + gone,
        reachable: reachable.length,
        unreachable: agents.filter((a) => a.status === 'UNREACHABLE').length,
        gone,
        deactivated: reachable.filter((a) => !a.activated).length,
        draining: reachable.filter((a) => a.drain_state).length,
        down: agents.filter((a) => downHosts.has(a.hostname)).length,
      },
      frameworks: { active: frameworkCount(FrameworkState.ACTIVE), disconnected: frameworkCount(FrameworkState.DISCONNECTED), completed },
      tasks,
      activeTasks: Object.entries(tasks)
        .filter(([s]) => !TERMINAL_TASK_STATES.includes(s as TaskState))
        .reduce((n, [, c]) => n + c, 0),
      outstandingOffers: outstanding.length,
      lastCycle: cycle
        ? {
            id: String(cycle.id),
            startedAt: cycle.startedAt.toISOString(),
            durationMs: round(cycle.durationMs),
            offerCount: cycle.offerCount,
          }
        : null,
      alerts: alerts.list(),
    };
  }

  private agentIdOf(agents: Array<{ id: string; hostname: string }>, hostname: string): string | null {
    return agents.find((a) => a.hostname === hostname)?.id ?? null;
  }
}

/** Collects alerts, most severe first; past ALERTS_PER_CODE of one code, a count stands for the rest. */
class Alerts {
  private readonly items: AlertDto[] = [];
  private readonly overflow = new Map<string, { severity: AlertSeverity; kind: AlertTargetDto['kind']; n: number }>();

  add(severity: AlertSeverity, code: string, message: string, kind: AlertTargetDto['kind'], id: string | null): void {
    if (this.items.filter((a) => a.code === code).length < ALERTS_PER_CODE)
      this.items.push({ severity, code, message, target: { kind, id } });
    else {
      const o = this.overflow.get(code) ?? { severity, kind, n: 0 };
      o.n++;
      this.overflow.set(code, o);
    }
  }

  list(): AlertDto[] {
    const rank = { [AlertSeverity.CRITICAL]: 0, [AlertSeverity.WARNING]: 1, [AlertSeverity.INFO]: 2 };
    const more = [...this.overflow].map(([code, o]) => ({
      severity: o.severity,
      code,
      message: `… and ${o.n} more ${code} alert${o.n === 1 ? '' : 's'}.`,
      target: { kind: 'cluster' as const, id: null },
    }));
    return [...this.items, ...more].sort((a, b) => rank[a.severity] - rank[b.severity]);
  }
}

@ApiTags('cluster')
@ApiBearerAuth()
@Controller('api/v1/cluster')
export class ClusterController {
  constructor(private readonly cluster: ClusterService) {}

  @Get()
  @ApiOperation({ summary: 'The cluster at a glance: capacity and use per resource, counts by state, the latest cycle, alerts' })
  @ApiOkResponse({ type: ClusterSummaryDto })
  @ApiErrors()
  summary(): Promise<ClusterSummaryDto> {
    return this.cluster.summary();
  }
}

@Module({ controllers: [ClusterController], providers: [ClusterRepository, ClusterService] })
export class ClusterModule {}
