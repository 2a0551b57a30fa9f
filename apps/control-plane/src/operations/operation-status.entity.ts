import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';

/**
 * The latest status of an operation a framework named with an id (Mesos's operation feedback),
 * kept until the framework acknowledges it, so that it is sent again after a failover.
 */
@Entity('operation_statuses')
@Index(['frameworkId', 'operationId'], { unique: true })
export class OperationStatusEntity {
  /** The status's uuid: the framework acknowledges with it. */
  @PrimaryColumn('uuid')
  uuid!: string;

  @Column('text')
  frameworkId!: string;

  @Column('text')
  operationId!: string;

  /** RESERVE, UNRESERVE (CREATE, DESTROY...). */
  @Column('text')
  type!: string;

  @Column('text', { nullable: true })
  agentId!: string | null;

  /** An OperationState name (OPERATION_FINISHED...). */
  @Column('text')
  state!: string;

  @Column('text', { nullable: true })
  message!: string | null;

  @Column('jsonb', { nullable: true })
  convertedResources!: ResourceEntry[] | null;

  @Column('timestamptz')
  at!: Date;
}
