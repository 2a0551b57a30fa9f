import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export enum FrameworkState {
  ACTIVE = 'ACTIVE',
  /** Disconnected, within its failover timeout: keeps its tasks. */
  DISCONNECTED = 'DISCONNECTED',
  /** Torn down or failed over past its timeout. */
  COMPLETED = 'COMPLETED',
}

/** A framework (scheduler) that subscribed to the control plane. */
@Entity('frameworks')
@Index(['state'])
export class FrameworkEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text', { nullable: true })
  principal!: string | null;

  @Column('text', { nullable: true })
  user!: string | null;

  @Column('text', { array: true })
  roles!: string[];

  /** e.g. GPU_RESOURCES, REVOCABLE_RESOURCES, MULTI_ROLE. */
  @Column('text', { array: true })
  capabilities!: string[];

  @Column('double precision')
  failoverTimeoutSeconds!: number;

  @Column('text', { nullable: true })
  hostname!: string | null;

  @Column('text', { nullable: true })
  webuiUrl!: string | null;

  /** Whether its executors outlive an agent restart (Mesos's FrameworkInfo.checkpoint); told to agents with each launch. */
  @Column('boolean', { default: true })
  checkpoint!: boolean;

  /** The protocol it subscribed with: 'arbiter' (socket.io, the SDK) or 'mesos' (Mesos's v1 scheduler HTTP API). */
  @Column('text', { default: 'arbiter' })
  protocol!: 'arbiter' | 'mesos';

  @Column({ type: 'enum', enum: FrameworkState, enumName: 'framework_state' })
  state!: FrameworkState;

  /** Roles for which the framework asked for no offers. */
  @Column('text', { array: true })
  suppressedRoles!: string[];

  @Column('timestamptz')
  registeredAt!: Date;

  @Column('timestamptz', { nullable: true })
  disconnectedAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  completedAt!: Date | null;
}
