import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AllocationCycleEntity } from './allocation-cycle.entity';

export enum ShareClientKind {
  ROLE = 'ROLE',
  FRAMEWORK = 'FRAMEWORK',
}

/** A client's dominant share after a cycle (for share-over-time history). */
@Entity('allocation_shares')
export class AllocationShareEntity {
  @PrimaryColumn('bigint')
  cycleId!: string;

  @ManyToOne(() => AllocationCycleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'cycle_id' })
  cycle?: AllocationCycleEntity;

  @PrimaryColumn({ type: 'enum', enum: ShareClientKind, enumName: 'share_client_kind' })
  clientKind!: ShareClientKind;

  /** Role path or framework id. */
  @PrimaryColumn('text')
  client!: string;

  /** For a framework: the role it was allocated under. */
  @Column('text', { nullable: true })
  role!: string | null;

  @Column('double precision')
  dominantShare!: number;

  /** allocated/total per resource name. */
  @Column('jsonb')
  shares!: Record<string, number>;
}
