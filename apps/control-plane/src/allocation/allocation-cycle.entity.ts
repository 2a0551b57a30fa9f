import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One allocation cycle: when it ran, what it offered, and its decision trace. */
@Entity('allocation_cycles')
@Index(['startedAt'])
export class AllocationCycleEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column('timestamptz')
  startedAt!: Date;

  @Column('double precision')
  durationMs!: number;

  @Column('integer')
  offerCount!: number;

  /** The allocator's decision trace: per role/framework/agent, what it got or why not. */
  @Column('jsonb')
  trace!: unknown;

  /** The replica that ran the cycle. */
  @Column('text', { nullable: true })
  leader!: string | null;
}
