/** Offers for operators: the list of offers made (the master's handlers answer and rescind them). */
import { Module } from '@nestjs/common';
import { OffersController } from './offers.controller';
import { OfferListRepository } from './offers.repository';
import { OffersService } from './offers.service';
import { OwnsEntities } from '../database/database.entities';
import { OfferEntity, OutstandingOfferEntity } from './offer.entity';

@OwnsEntities(OfferEntity, OutstandingOfferEntity)
@Module({ controllers: [OffersController], providers: [OffersService, OfferListRepository] })
export class OffersModule {}
