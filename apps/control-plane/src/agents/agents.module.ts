import { Module } from '@nestjs/common';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';
import { OwnsEntities } from '../database/database.entities';
import { AgentEntity } from './agent.entity';
import { ExecutorsModule } from '../executors/executors.module';
import { MasterModule } from '../master/master.module';

@OwnsEntities(AgentEntity)
@Module({
  imports: [MasterModule, ExecutorsModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentsService],
  exports: [AgentsRepository, AgentsService],
})
export class AgentsModule {}
