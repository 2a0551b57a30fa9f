/** Operation feedback: the statuses of offer operations that frameworks name with an id, kept until acknowledged. */
import { Module } from '@nestjs/common';
import { OwnsEntities } from '../database/database.entities';
import { MasterModule } from '../master/master.module';
import { OperationFeedback } from './operation-feedback.handler';
import { OperationStatusEntity } from './operation-status.entity';
import { OperationStatusesRepository } from './operation-statuses.repository';

@OwnsEntities(OperationStatusEntity)
@Module({
  imports: [MasterModule],
  providers: [OperationFeedback, OperationStatusesRepository],
  exports: [OperationFeedback],
})
export class OperationsModule {}
