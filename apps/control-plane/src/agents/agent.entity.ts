import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import type { AgentCapabilities, AgentHealth } from '@arbiter/contracts';
import type { z } from 'zod';

/** Whether the control plane hears from the agent. */
export enum AgentStatus {
  REACHABLE = 'REACHABLE',
  UNREACHABLE = 'UNREACHABLE',
  /** Marked gone by an operator (or a drain with markGone): never comes back under this id. */
  GONE = 'GONE',
}

export enum DrainState {
  /** Deactivated; its tasks are being killed or allowed to finish. */
  DRAINING = 'DRAINING',
  /** Deactivated and without tasks. */
  DRAINED = 'DRAINED',
}

export interface DrainConfig {
  maxGracePeriodSeconds: number | null;
  markGone: boolean;
}

interface AgentIsolation {
  mode: string;
  controllers: string[];
  taskUser?: string;
  diskQuota: boolean;
}

/** A machine's agent as last registered: what it offers and how operators have set it. */
@Entity('agents')
@Index(['hostname'])
@Index(['status'])
export class AgentEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  hostname!: string;

  /** host:port the agent can be reached at, when known. */
  @Column('text', { nullable: true })
  address!: string | null;

  @Column('jsonb')
  attributes!: Record<string, string | number>;

  /** Total resources, as resource entries (the canonical JSON form of @arbiter/allocator). */
  @Column('jsonb')
  resources!: ResourceEntry[];

  @Column({ type: 'enum', enum: AgentStatus, enumName: 'agent_status' })
  status!: AgentStatus;

  /** False when an operator deactivated it: no new offers, running tasks untouched. */
  @Column('boolean')
  activated!: boolean;

  @Column({ type: 'enum', enum: DrainState, enumName: 'agent_drain_state', nullable: true })
  drainState!: DrainState | null;

  @Column('jsonb', { nullable: true })
  drainConfig!: DrainConfig | null;

  @Column('timestamptz', { nullable: true })
  drainStartedAt!: Date | null;

  @Column('text', { nullable: true })
  version!: string | null;

  /** The principal that first registered this agent id: only it may register under the id again. */
  @Column('text', { nullable: true })
  principal!: string | null;

  /** How the agent isolates tasks, as it reported at registration. */
  @Column('jsonb', { nullable: true })
  isolation!: AgentIsolation | null;

  /**
   * Its containerizers, isolators, OCI runtime, tools and GPUs, as it reported at registration
   * (null: an agent older than containers, which runs plain processes only).
   */
  @Column('jsonb', { nullable: true })
  capabilities?: z.output<typeof AgentCapabilities> | null;

  /** What keeps it from running new tasks, as it last reported (null: it never said). */
  @Column('jsonb', { nullable: true })
  health!: AgentHealth | null;

  @Column('timestamptz')
  firstSeenAt!: Date;

  @Column('timestamptz')
  lastSeenAt!: Date;
}
