import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The agent whitelist: one row. `hostnames` NULL means no whitelist (every agent may be
 * offered); an empty array means none may.
 */
@Entity('whitelist')
@Check('whitelist_single_row', '"id" = 1')
export class WhitelistEntity {
  @PrimaryColumn('smallint')
  id!: number;

  @Column('text', { array: true, nullable: true })
  hostnames!: string[] | null;

  @Column('timestamptz')
  updatedAt!: Date;
}
