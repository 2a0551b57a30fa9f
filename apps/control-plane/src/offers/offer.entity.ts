import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { AgentEntity } from '../agents/agent.entity';
import { FrameworkEntity } from '../frameworks/framework.entity';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';

export enum OfferState {
  OUTSTANDING = 'OUTSTANDING',
  ACCEPTED = 'ACCEPTED',
  DECLINED = 'DECLINED',
  RESCINDED = 'RESCINDED',
  EXPIRED = 'EXPIRED',
}

/** Resources of one agent offered to one framework for one role. */
@Entity('offers')
@Index(['state'])
@Index(['agentId'])
@Index(['frameworkId'])
export class OfferEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  frameworkId!: string;

  @ManyToOne(() => FrameworkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'framework_id' })
  framework?: FrameworkEntity;

  @Column('text')
  agentId!: string;

  @ManyToOne(() => AgentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: AgentEntity;

  @Column('text')
  role!: string;

  @Column('jsonb')
  resources!: ResourceEntry[];

  @Column({ type: 'enum', enum: OfferState, enumName: 'offer_state' })
  state!: OfferState;

  /** The allocation cycle that made the offer. */
  @Column('bigint', { nullable: true })
  cycleId!: string | null;

  @ManyToOne(() => AllocationCycleEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'cycle_id' })
  cycle?: AllocationCycleEntity;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  expiresAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  closedAt!: Date | null;
}
