/** Dynamic reservations: the operator API, and the same rules for frameworks' RESERVE and UNRESERVE. */
import { Module } from '@nestjs/common';
import { ReservationsController } from './reservations.controller';
import { ReservationsRepository } from './reservations.repository';
import { ReservationsService } from './reservations.service';
import { OwnsEntities } from '../database/database.entities';
import { ReservationEntity } from './reservation.entity';
import { MasterModule } from '../master/master.module';

@OwnsEntities(ReservationEntity)
@Module({
  imports: [MasterModule],
  controllers: [ReservationsController],
  providers: [ReservationsService, ReservationsRepository],
  exports: [ReservationsService],
})
export class ReservationsModule {}
