/** Allocation: the allocation loop and its cycles' records, inverse offers, the allocator's configuration and its snapshot for what-if. */
import { Module } from '@nestjs/common';
import { OwnsEntities } from '../database/database.entities';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { MasterModule } from '../master/master.module';
import { AllocationCycleEntity } from './allocation-cycle.entity';
import { AllocationLoop } from './allocation-loop.handler';
import { AllocationShareEntity } from './allocation-share.entity';
import { AllocationSnapshot } from './allocation-snapshot';
import { AllocationRepository } from './allocation.repository';
import { AllocatorConfigRepository } from './allocator-config.repository';
import { InverseOffers } from './inverse-offers.handler';

@OwnsEntities(AllocationCycleEntity, AllocationShareEntity)
@Module({
  imports: [MasterModule, MaintenanceModule],
  providers: [AllocationLoop, InverseOffers, AllocationSnapshot, AllocationRepository, AllocatorConfigRepository],
  exports: [AllocationLoop, InverseOffers, AllocationSnapshot, AllocatorConfigRepository],
})
export class AllocationModule {}
