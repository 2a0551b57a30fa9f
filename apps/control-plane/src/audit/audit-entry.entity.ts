import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One operator change: who, when, what, and the state before and after. */
@Entity('audit_log')
@Index(['at'])
@Index(['action'])
@Index(['targetType', 'targetId'])
@Index(['actor'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column('timestamptz')
  at!: Date;

  /** The principal's name. */
  @Column('text')
  actor!: string;

  @Column('uuid', { nullable: true })
  principalId!: string | null;

  @Column('uuid', { nullable: true })
  tokenId!: string | null;

  /** e.g. `agent.deactivate`, `quota.update`. */
  @Column('text')
  action!: string;

  @Column('text')
  targetType!: string;

  @Column('text', { nullable: true })
  targetId!: string | null;

  @Column('jsonb', { nullable: true })
  before!: unknown;

  @Column('jsonb', { nullable: true })
  after!: unknown;

  @Column('text', { nullable: true })
  requestId!: string | null;
}
