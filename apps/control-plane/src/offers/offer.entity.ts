import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
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

/**
 * Resources of one agent offered to one framework for one role: the record of every offer made.
 *
 * Offers are the busiest rows of the schema (a cycle makes hundreds, most are declined within
 * the second), so the table is shaped for that: no column that changes when an offer closes
 * (`state`, `closedAt`) is indexed, and pages are half filled (fillfactor 50, set in the
 * migration), so closing an offer is a heap-only update that touches no index; there are no
 * foreign keys to check on insert (agents and frameworks are never deleted, cycles are pruned
 * with their offers). Which offers are outstanding is kept in `outstanding_offers`.
 */
@Entity('offers')
@Index(['agentId', 'createdAt'])
@Index(['frameworkId', 'createdAt'])
@Index(['cycleId'])
@Index(['createdAt'])
export class OfferEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  frameworkId!: string;

  @ManyToOne(() => FrameworkEntity, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'framework_id' })
  framework?: FrameworkEntity;

  @Column('text')
  agentId!: string;

  @ManyToOne(() => AgentEntity, { createForeignKeyConstraints: false })
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

  @ManyToOne(() => AllocationCycleEntity, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'cycle_id' })
  cycle?: AllocationCycleEntity;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  expiresAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  closedAt!: Date | null;
}

/**
 * The offers still outstanding (made, not yet accepted, declined, rescinded or expired): a few
 * rows per agent at most, inserted with the offer and deleted when it closes, in the same
 * statements that write `offers`.
 */
@Entity('outstanding_offers')
export class OutstandingOfferEntity {
  @PrimaryColumn('uuid')
  offerId!: string;
}
