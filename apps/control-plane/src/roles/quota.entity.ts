import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { RoleEntity } from './role.entity';

/** Scalar amounts by resource name, e.g. `{"cpus": 4, "mem": 8192}`. */
export type ScalarMap = Record<string, number>;

/** A role's quota: guaranteed amounts and limits (no entry for a resource = no limit). */
@Entity('quotas')
export class QuotaEntity {
  @PrimaryColumn('text')
  role!: string;

  @OneToOne(() => RoleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role', referencedColumnName: 'path' })
  roleRef?: RoleEntity;

  @Column('jsonb')
  guarantees!: ScalarMap;

  @Column('jsonb')
  limits!: ScalarMap;

  @Column('timestamptz')
  updatedAt!: Date;
}
