import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MaintenanceWindowEntity } from './maintenance-window.entity';

/**
 * Machine modes, as in Mesos: UP (not scheduled), DRAINING (scheduled, frameworks get inverse
 * offers), DOWN (maintenance started: its agents get no offers).
 */
export enum MachineMode {
  UP = 'UP',
  DRAINING = 'DRAINING',
  DOWN = 'DOWN',
}

/**
 * A machine in the schedule, named by hostname and/or IP ('' when absent). The primary key
 * keeps a machine in at most one window.
 */
@Entity('maintenance_machines')
@Index(['windowId'])
export class MaintenanceMachineEntity {
  @PrimaryColumn('text')
  hostname!: string;

  @PrimaryColumn('text')
  ip!: string;

  @Column('uuid')
  windowId!: string;

  @ManyToOne(() => MaintenanceWindowEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'window_id' })
  window?: MaintenanceWindowEntity;

  @Column({ type: 'enum', enum: MachineMode, enumName: 'machine_mode' })
  mode!: MachineMode;

  @Column('timestamptz', { nullable: true })
  downSince!: Date | null;
}
