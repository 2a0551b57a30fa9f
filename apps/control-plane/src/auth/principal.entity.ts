import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export enum PrincipalKind {
  USER = 'USER',
  SERVICE = 'SERVICE',
}

/**
 * Someone who acts on the cluster: an operator or a piece of automation. Tokens belong to a
 * principal; ACLs (what a principal may do) will reference it.
 */
@Entity('principals')
export class PrincipalEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text', { unique: true })
  name!: string;

  @Column({ type: 'enum', enum: PrincipalKind, enumName: 'principal_kind' })
  kind!: PrincipalKind;

  /** Admins may do everything; finer ACLs come later. */
  @Column('boolean')
  isAdmin!: boolean;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  disabledAt!: Date | null;
}
