/** What the master reads of the maintenance schedule, and the frameworks' answers to inverse offers it records. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { InverseOfferResponseEntity, type InverseOfferStatus } from './inverse-offer-response.entity';
import { MaintenanceMachineEntity } from './maintenance-machine.entity';
import { MaintenanceWindowEntity } from './maintenance-window.entity';

@Injectable()
export class MaintenanceStateRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  /** Every scheduled machine with its window. */
  machines(): Promise<MaintenanceMachineEntity[]> {
    return this.dataSource.manager.find(MaintenanceMachineEntity, { relations: { window: true } });
  }

  windows(): Promise<MaintenanceWindowEntity[]> {
    return this.dataSource.manager.find(MaintenanceWindowEntity);
  }

  async recordInverseOfferAnswer(hostname: string, frameworkId: string, status: InverseOfferStatus, at: Date): Promise<void> {
    await this.dataSource.manager.upsert(InverseOfferResponseEntity, { hostname, ip: '', frameworkId, status, updatedAt: at }, [
      'hostname',
      'ip',
      'frameworkId',
    ]);
  }
}
