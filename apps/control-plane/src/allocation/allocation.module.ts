/** Allocation state shared by the operator API: what tasks and offers hold. */
import { Global, Module } from '@nestjs/common';
import { AllocationUsageRepository } from './allocation-usage.repository';
import { OwnsEntities } from '../database/database.entities';
import { AllocationCycleEntity } from '../offers/allocation-cycle.entity';
import { AllocationShareEntity } from './allocation-share.entity';

@Global()
@OwnsEntities(AllocationCycleEntity, AllocationShareEntity)
@Module({
  providers: [AllocationUsageRepository],
  exports: [AllocationUsageRepository],
})
export class AllocationModule {}
