/**
 * The cluster at a glance (what the dashboard's overview shows, and what an operator's script
 * checks first): capacity, use, offers and reservations per resource over reachable agents;
 * agents, frameworks and tasks counted by state; the latest allocation cycle; and alerts, each
 * with a stable code, a sentence and the agent, framework or role it is about.
 */
import { isTerminalTaskState } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.service';
import { FrameworkState } from '../frameworks/framework.entity';
import { LiveView } from '../master/live-view';
import { addRevocable } from '../master/revocable';
import { Alerts } from './cluster.alerts';
import { AlertSeverity, type ClusterSummaryDto } from './cluster.dto';
import { ClusterRepository } from './cluster.repository';

/** Offers unanswered for longer than this are an alert: they keep resources from everyone else. */
const HELD_OFFER_SECONDS = 60;

const round = (n: number) => Math.round(n * 1000) / 1000;

@Injectable()
export class ClusterService {
  constructor(
    private readonly db: Database,
    private readonly repo: ClusterRepository,
    private readonly live: LiveView,
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
    const [live, revocable] = await Promise.all([this.live.snapshot(), this.live.revocable(reachable.map((a) => a.id))]);
    const outstanding = live.offers;
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
    for (const a of reachable.filter((a) => !live.connectedAgents.has(a.id))) {
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
    const held = new Map<string, number>();
    for (const o of outstanding) if (o.ageMs >= HELD_OFFER_SECONDS * 1000) held.set(o.frameworkId, (held.get(o.frameworkId) ?? 0) + 1);
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
        .filter(([s]) => !isTerminalTaskState(s))
        .reduce((n, [, c]) => n + c, 0),
      outstandingOffers: outstanding.length,
      revocable: addRevocable(revocable.values()),
      lastCycle: cycle
        ? {
            id: cycle.id,
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
