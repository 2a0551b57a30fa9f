/** Allocation state shared by the operator API: what tasks and offers hold. */
import { Global, Module } from '@nestjs/common';
import { AllocationUsageRepository } from './allocation-usage.repository';

@Global()
@Module({
  providers: [AllocationUsageRepository],
  exports: [AllocationUsageRepository],
})
export class AllocationModule {}
