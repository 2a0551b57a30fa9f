/** Offers: the list of offers made, for operators, and the master's handlers that answer and rescind them. */
import { Module } from '@nestjs/common';
import { OffersController } from './offers.controller';
import { OfferListRepository, OffersRepository } from './offers.repository';
import { OffersService } from './offers.service';
import { OwnsEntities } from '../database/database.entities';
import { OfferEntity, OutstandingOfferEntity } from './offer.entity';
import { AllocationModule } from '../allocation/allocation.module';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';
import { ReservationsModule } from '../reservations/reservations.module';
import { VolumesModule } from '../volumes/volumes.module';
import { TasksModule } from '../tasks/tasks.module';
import { OperationsModule } from '../operations/operations.module';
import { AnswerPlans } from './answer-plans';
import { LaunchHooks } from './launch-hooks';
import { OfferAnswers } from './offer-answers.handler';
import { OfferRescinds } from './offer-rescinds.handler';
import { ReservationAccepts } from './reservation-accepts.handler';
import { VolumeAccepts } from './volume-accepts.handler';

@OwnsEntities(OfferEntity, OutstandingOfferEntity)
@Module({
  imports: [MasterModule, ExecutorsModule, TasksModule, AllocationModule, ReservationsModule, OperationsModule, VolumesModule],
  controllers: [OffersController],
  providers: [
    OffersService,
    OfferListRepository,
    OffersRepository,
    OfferRescinds,
    OfferAnswers,
    AnswerPlans,
    LaunchHooks,
    ReservationAccepts,
    VolumeAccepts,
  ],
  exports: [OffersRepository, OfferRescinds, OfferAnswers],
})
export class OffersModule {}
