import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * What a principal is for, and so what it may do (see auth/permissions.ts): `ADMIN` everything;
 * `OPERATOR` read and change the cluster within the ACLs; `VIEWER` read; `FRAMEWORK` subscribe
 * schedulers on /frameworks; `AGENT` register agents on /agents.
 */
export enum PrincipalKind {
  ADMIN = 'ADMIN',
  OPERATOR = 'OPERATOR',
  VIEWER = 'VIEWER',
  FRAMEWORK = 'FRAMEWORK',
  AGENT = 'AGENT',
}

/** Someone who acts on the cluster: a person, a scheduler or an agent. Tokens belong to a principal. */
@Entity('principals')
export class PrincipalEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text', { unique: true })
  name!: string;

  @Column({ type: 'enum', enum: PrincipalKind, enumName: 'principal_kind' })
  kind!: PrincipalKind;

  @Column('text', { default: '' })
  description!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  disabledAt!: Date | null;
}
