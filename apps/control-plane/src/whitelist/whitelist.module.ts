/** The agent whitelist: the operator API (the allocator follows it through cluster events). */
import { Module } from '@nestjs/common';
import { WhitelistController } from './whitelist.controller';
import { WhitelistRepository } from './whitelist.repository';
import { WhitelistService } from './whitelist.service';
import { OwnsEntities } from '../database/database.entities';
import { WhitelistEntity } from './whitelist.entity';

@OwnsEntities(WhitelistEntity)
@Module({ controllers: [WhitelistController], providers: [WhitelistService, WhitelistRepository] })
export class WhitelistModule {}
