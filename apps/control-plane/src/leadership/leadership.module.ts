/** Leader election and the master's fenced pool (see leadership.service.ts); global. */
import { Global, Module } from '@nestjs/common';
import { MasterDatabase } from '../database/master-database';
import { LeadershipRepository } from './leadership.repository';
import { Leadership } from './leadership.service';
import { OwnsEntities } from '../database/database.entities';
import { LeaderTermEntity } from './leader-term.entity';

@Global()
@OwnsEntities(LeaderTermEntity)
@Module({ providers: [Leadership, LeadershipRepository, MasterDatabase], exports: [Leadership, MasterDatabase] })
export class LeadershipModule {}
