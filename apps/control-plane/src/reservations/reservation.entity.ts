import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { AgentEntity } from '../agents/agent.entity';

/** A dynamic reservation: resources of one agent set aside for a role. */
@Entity('reservations')
@Index(['agentId'])
@Index(['role'])
export class ReservationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  agentId!: string;

  @ManyToOne(() => AgentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: AgentEntity;

  @Column('text')
  role!: string;

  /** The reserved resources, each entry carrying `reservation: role`. */
  @Column('jsonb')
  resources!: ResourceEntry[];

  @Column('jsonb')
  labels!: Record<string, string>;

  /** Who made the reservation (the operator's principal or a framework's). */
  @Column('text')
  principal!: string;

  @Column('timestamptz')
  createdAt!: Date;
}
