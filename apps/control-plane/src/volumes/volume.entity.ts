import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AgentEntity } from '../agents/agent.entity';

/**
 * A persistent volume (Mesos's CREATE): `disk` MB of disk reserved for `role` on one agent,
 * made into a volume named `persistenceId` that lives on the agent outside any sandbox. The
 * allocator offers it to the role as `disk(role, volume=persistenceId)`.
 */
@Entity('volumes')
@Index(['agentId', 'role', 'persistenceId'], { unique: true })
@Index(['role'])
export class VolumeEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  agentId!: string;

  @ManyToOne(() => AgentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: AgentEntity;

  @Column('text')
  role!: string;

  /** Mesos's `disk.persistence.id`: unique per role on the agent. */
  @Column('text')
  persistenceId!: string;

  /** Its size in MB. */
  @Column('double precision')
  disk!: number;

  /** Where tasks see it (Mesos's `disk.volume.container_path`). */
  @Column('text')
  containerPath!: string;

  /** RW or RO (Mesos's `disk.volume.mode`). */
  @Column('text')
  mode!: string;

  /** Who created it (Mesos's `disk.persistence.principal`): the ACL destroy_volumes matches it. */
  @Column('text')
  principal!: string;

  /** The disk it is on, when not the agent's root disk (Mesos's `disk.source`: PATH or MOUNT). */
  @Column('jsonb', { nullable: true })
  source!: { type: 'PATH' | 'MOUNT'; root: string } | null;

  /** Shared (Mesos's `Resource.shared`, SHARED_RESOURCES frameworks): offered and used by several tasks at once. */
  @Column('boolean', { default: false })
  shared!: boolean;

  /** Where the volume lives on its agent, as the agent answered. */
  @Column('text', { nullable: true })
  hostPath!: string | null;

  @Column('timestamptz')
  createdAt!: Date;
}
