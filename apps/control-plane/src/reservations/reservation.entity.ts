import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { AgentEntity } from '../agents/agent.entity';

/** A layer of a refined reservation: the role it reserved for and who reserved it. */
export interface ReservationLayer {
  role: string;
  principal: string;
}

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

  /**
   * Reservation refinement: the layers below this one, bottom first (`[{role: 'eng'}]` for
   * `eng/ml` refined from `eng`), empty for a reservation of unreserved resources. Unreserving
   * pops this layer only: the resources go back to the layer below, reserved for its role.
   */
  @Column('jsonb', { default: () => "'[]'" })
  refines!: ReservationLayer[];
}
