/** Every query of the maintenance API: windows, machines and the answers to inverse offers. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { InverseOfferResponseEntity } from './inverse-offer-response.entity';
import { MachineMode, MaintenanceMachineEntity } from './maintenance-machine.entity';
import { MaintenanceWindowEntity } from './maintenance-window.entity';
import type { MachineId } from './maintenance.rules';

@Injectable()
export class MaintenanceRepository {
  windows(tx: EntityManager): Promise<MaintenanceWindowEntity[]> {
    return tx.find(MaintenanceWindowEntity, { order: { position: 'ASC' } });
  }

  machines(tx: EntityManager): Promise<MaintenanceMachineEntity[]> {
    return tx.find(MaintenanceMachineEntity, { order: { hostname: 'ASC', ip: 'ASC' } });
  }

  machine(tx: EntityManager, id: MachineId): Promise<MaintenanceMachineEntity | null> {
    return tx.findOne(MaintenanceMachineEntity, { where: { hostname: id.hostname, ip: id.ip } });
  }

  answers(tx: EntityManager): Promise<InverseOfferResponseEntity[]> {
    return tx.find(InverseOfferResponseEntity);
  }

  /** Empties the schedule (machines, then windows). */
  async clearSchedule(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM maintenance_machines');
    await tx.query('DELETE FROM maintenance_windows');
  }

  async insertWindow(tx: EntityManager, w: { position: number; startAt: Date; durationSeconds: number | null }): Promise<string> {
    return (await tx.save(tx.create(MaintenanceWindowEntity, w))).id;
  }

  async insertMachine(tx: EntityManager, m: Omit<MaintenanceMachineEntity, 'window'>): Promise<void> {
    await tx.insert(MaintenanceMachineEntity, m);
  }

  async markDown(tx: EntityManager, id: MachineId, since: Date): Promise<void> {
    await tx.update(MaintenanceMachineEntity, { hostname: id.hostname, ip: id.ip }, { mode: MachineMode.DOWN, downSince: since });
  }

  async removeMachine(tx: EntityManager, id: MachineId): Promise<void> {
    await tx.delete(MaintenanceMachineEntity, { hostname: id.hostname, ip: id.ip });
  }

  /** Forgets frameworks' answers to the inverse offers of a machine. */
  async forgetAnswers(tx: EntityManager, id: MachineId): Promise<void> {
    await tx.delete(InverseOfferResponseEntity, { hostname: id.hostname, ip: id.ip });
  }

  /** Windows left without machines leave the schedule. */
  async dropEmptyWindows(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM maintenance_windows w WHERE NOT EXISTS (SELECT 1 FROM maintenance_machines m WHERE m.window_id = w.id)');
  }
}
