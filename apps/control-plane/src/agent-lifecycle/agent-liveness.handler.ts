/**
 * Agents' signs of life: heartbeats, disconnection (offers rescinded, tasks kept), and silence
 * past the timeout (unreachable: offers rescinded, tasks LOST).
 */
import type { AgentHeartbeat } from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.schema';
import { OperatorStream } from '../realtime/operator-stream';
import { CLOCK, type Clock } from '../kernel/clock';
import { type AgentRuntime, type AgentSocket, ClusterState } from '../master/cluster-state';
import { AgentRegistry } from '../master/agent-registry';
import { Kernel } from '../kernel/kernel';
import { OfferRescinds } from '../offers/offer-rescinds.handler';
import { TaskState } from '../tasks/task.entity';
import { AgentStatus } from '../agents/agent.entity';
import { AgentRemoval } from './agent-removal.handler';
import { AgentSessionsRepository } from './agent-sessions.repository';

@Injectable()
export class AgentLiveness {
  private readonly logger = new Logger('AgentLiveness');

  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly registry: AgentRegistry,
    private readonly agents: AgentSessionsRepository,
    private readonly offers: OfferRescinds,
    private readonly removal: AgentRemoval,
    private readonly stream: OperatorStream,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A heartbeat: the agent is alive. The health it carries, when it changed, is recorded on the
   * agent (REST, dashboard) and announced as agent.updated; a problem is logged once.
   */
  heartbeat(socket: AgentSocket, msg: AgentHeartbeat = {}): void {
    const runtime = this.state.agentOf(socket);
    if (!runtime) return;
    this.registry.seen(runtime.id, this.clock.now());
    const { health } = msg;
    if (!health) return;
    const key = JSON.stringify(health);
    if (key === runtime.health) return;
    const id = runtime.id;
    this.registry.healthReported(id, key);
    if (!health.ok) this.logger.warn({ agentId: id, problems: health.problems }, `agent ${runtime.hostname} cannot take tasks`);
    this.kernel.afterCommit(
      this.kernel.write('background', () => this.agents.setHealth(id, health)),
      () => this.stream.emit('agent.updated', { agentId: id }),
      // Recorded at the next change or registration.
      () => this.registry.get(id)?.health === key && this.registry.healthReported(id, undefined),
    );
  }

  disconnected(socket: AgentSocket): Promise<void> {
    return this.kernel.exclusive(async () => {
      const runtime = this.state.agentOf(socket);
      if (!runtime) return;
      this.registry.disconnected(runtime.id);
      if (runtime.inAllocator) this.state.allocator.deactivateAgent(runtime.id);
      await this.offers.onAgent(runtime.id, 'the agent disconnected');
      this.stream.emit('agent.updated', { agentId: runtime.id });
    });
  }

  /** Seconds of silence after which an agent is unreachable. */
  private timeoutOf(agent: AgentRuntime): number {
    return agent.recovered ? this.config.agentReregisterTimeout : this.config.agentTimeout;
  }

  private isSilent(agent: AgentRuntime): boolean {
    return agent.lastSeen <= this.clock.now() - this.timeoutOf(agent) * 1000;
  }

  /** Whether any agent has been silent past its timeout (checked without a turn in the serial order). */
  anySilent(): boolean {
    for (const a of this.state.agents.values()) if (this.isSilent(a)) return true;
    return false;
  }

  /** Agents silent past their timeout become unreachable: offers rescinded, tasks LOST. */
  checkSilent(): Promise<void> {
    return this.kernel.exclusive(async () => {
      for (const agent of [...this.state.agents.values()]) {
        // Heard from while earlier ones were removed: kept.
        if (!this.isSilent(agent)) continue;
        agent.socket?.disconnect(true);
        const reason = agent.recovered
          ? `not registered again within ${this.config.agentReregisterTimeout} s of the control plane's start`
          : `no heartbeat for ${this.config.agentTimeout} s`;
        await this.removal.remove(agent.id, reason, TaskState.LOST, AgentStatus.UNREACHABLE, TaskState.UNREACHABLE);
      }
    });
  }

  /** Records that the connected agents were seen (their rows' last_seen_at). */
  async recordSeen(): Promise<void> {
    await this.agents.recordSeen([...this.state.agents.values()].filter((a) => a.socket).map((a) => a.id));
  }
}
