import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A role with explicit configuration (a weight, a quota). Roles without a row weigh 1. */
@Entity('roles')
export class RoleEntity {
  /** Path such as `eng/ml/training`. */
  @PrimaryColumn('text')
  path!: string;

  @Column('double precision')
  weight!: number;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
