/**
 * Keeps the allocator in step with the database: rebuilt from it at start (roles, quotas,
 * whitelist, frameworks inactive until they re-subscribe, agents inactive until they
 * re-register, live tasks, maintenance), then changed by each operator change as it commits.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentDrain } from '../agent-lifecycle/agent-drain.handler';
import { AgentMembership } from '../agent-lifecycle/agent-membership.handler';
import { AgentSessionsRepository } from '../agent-lifecycle/agent-sessions.repository';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { type ClusterEvent } from '../leadership/cluster-events';
import { FrameworkFailover } from '../framework-lifecycle/framework-failover.handler';
import { FrameworkSessionsRepository } from '../framework-lifecycle/framework-sessions.repository';
import { CLOCK, type Clock } from '../kernel/clock';
import { ClusterState } from '../master/cluster-state';
import { MaintenanceSync } from '../agent-lifecycle/maintenance-sync.handler';
import { OffersRepository } from '../offers/offers.repository';
import type { QuotaEntity } from '../roles/quota.entity';
import { TasksRepository } from '../tasks/tasks.repository';
import { AllocationLoop } from '../allocation/allocation-loop.handler';
import { AllocatorConfigRepository } from '../allocation/allocator-config.repository';
import { Executors } from '../executors/executors.handler';

/** Changes the next timed cycle takes up (see `apply`). */
const REREAD_AT_NEXT_CYCLE = new Set<ClusterEvent['type']>(['weights.updated', 'quota.updated', 'quota.removed']);

@Injectable()
export class AllocatorSync {
  private readonly logger = new Logger('AllocatorSync');
  /** Roles given quota in the allocator. */
  private quotaRoles = new Set<string>();

  constructor(
    private readonly state: ClusterState,
    private readonly configRepo: AllocatorConfigRepository,
    private readonly offers: OffersRepository,
    private readonly frameworks: FrameworkSessionsRepository,
    private readonly agents: AgentSessionsRepository,
    private readonly tasks: TasksRepository,
    private readonly agentMembership: AgentMembership,
    private readonly agentDrain: AgentDrain,
    private readonly frameworkFailover: FrameworkFailover,
    private readonly maintenance: MaintenanceSync,
    private readonly loop: AllocationLoop,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly executors: Executors,
  ) {}

  /**
   * The allocator's state from Postgres. Offers outstanding before a restart are rescinded:
   * frameworks get new ones.
   */
  async rebuild(): Promise<void> {
    this.state.resetAllocator(this.config);
    this.quotaRoles.clear();
    await this.offers.rescindAllOutstanding(this.clock.date());
    await this.loadConfiguration();
    const frameworks = await this.frameworks.notCompleted();
    for (const fw of frameworks) await this.frameworkFailover.restore(fw);
    for (const t of await this.tasks.live()) this.state.liveTasks.add(t);
    await this.executors.restore();
    const agents = await this.agents.reachable();
    for (const agent of agents) await this.agentMembership.restore(agent);
    await this.maintenance.apply();
    this.logger.log({ frameworks: frameworks.length, agents: agents.length }, 'allocator state rebuilt from the database');
  }

  /** An operator's change, once committed. */
  async apply(e: ClusterEvent): Promise<void> {
    const { allocator } = this.state;
    switch (e.type) {
      case 'agent.updated':
        await this.agentDrain.refresh(e.agentId);
        break;
      case 'whitelist.updated':
        allocator.updateWhitelist(e.hostnames);
        break;
      case 'weights.updated':
        for (const [role, weight] of Object.entries(e.weights)) allocator.setWeight(role, weight);
        break;
      case 'quota.updated': {
        const q = await this.configRepo.quota(e.role);
        if (q) {
          this.applyQuota(q);
          this.quotaRoles.add(q.role);
        }
        break;
      }
      case 'quota.removed':
        allocator.removeQuota(e.role);
        this.quotaRoles.delete(e.role);
        break;
      case 'reservation.created':
      case 'reservation.removed':
      case 'volume.created':
      case 'volume.destroyed':
        await this.agentDrain.refresh(e.agentId, { resync: true });
        break;
      case 'maintenance.updated':
        await this.maintenance.apply();
        break;
      case 'config.resync':
        await this.loadConfiguration(true);
        await this.maintenance.apply();
        break;
    }
    // As in Mesos, weights and quota are read by the next timed cycle rather than one of their
    // own: they bring nothing new to offer, and a stream of them must not keep the allocator
    // running back to back. The other changes may (an agent's resources, a reservation, an
    // agent back from maintenance or whitelisted).
    if (!REREAD_AT_NEXT_CYCLE.has(e.type)) this.loop.requestCycle();
  }

  /** Weights, quota and the whitelist as stored (quota the database no longer has is removed). */
  private async loadConfiguration(resync = false): Promise<void> {
    const { allocator } = this.state;
    // At a rebuild every role starts at weight 1; a resync also resets weights set back to 1.
    for (const role of await this.configRepo.roles()) if (resync || role.weight !== 1) allocator.setWeight(role.path, role.weight);
    const quotas = await this.configRepo.quotas();
    const kept = new Set(quotas.map((q) => q.role));
    for (const role of this.quotaRoles) if (!kept.has(role)) allocator.removeQuota(role);
    this.quotaRoles = kept;
    for (const q of quotas) this.applyQuota(q);
    allocator.updateWhitelist(await this.configRepo.whitelist());
  }

  private applyQuota(q: QuotaEntity): void {
    try {
      this.state.allocator.setQuota(q.role, q.guarantees, q.limits);
    } catch (err) {
      this.logger.warn({ err, role: q.role }, 'quota not applied');
    }
  }
}
