import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One window of the maintenance schedule: when its machines become unavailable. */
@Entity('maintenance_windows')
@Index(['position'])
export class MaintenanceWindowEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Order of the window in the schedule as the operator gave it. */
  @Column('integer')
  position!: number;

  @Column('timestamptz')
  startAt!: Date;

  /** Length of the unavailability; NULL for "until maintenance is stopped". */
  @Column('integer', { nullable: true })
  durationSeconds!: number | null;
}
