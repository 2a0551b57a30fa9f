/** Maintenance: the operator API of the schedule and of machines going DOWN and UP (the master follows it through cluster events). */
import { Module } from '@nestjs/common';
import { MaintenanceController } from './maintenance.controller';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceService } from './maintenance.service';
import { OwnsEntities } from '../database/database.entities';
import { MaintenanceWindowEntity } from './maintenance-window.entity';
import { MaintenanceMachineEntity } from './maintenance-machine.entity';
import { InverseOfferResponseEntity } from './inverse-offer-response.entity';
import { MaintenanceStateRepository } from './maintenance-state.repository';

@OwnsEntities(MaintenanceWindowEntity, MaintenanceMachineEntity, InverseOfferResponseEntity)
@Module({
  controllers: [MaintenanceController],
  providers: [MaintenanceService, MaintenanceRepository, MaintenanceStateRepository],
  exports: [MaintenanceStateRepository, MaintenanceService],
})
export class MaintenanceModule {}
