import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { FrameworkExplainService } from './framework-explain.service';
import { ExplainController, FrameworksController } from './frameworks.controller';
import { FrameworksRepository } from './frameworks.repository';
import { FrameworksService } from './frameworks.service';
import { OwnsEntities } from '../database/database.entities';
import { FrameworkEntity } from './framework.entity';
import { MasterModule } from '../master/master.module';
import { ExecutorsModule } from '../executors/executors.module';

@OwnsEntities(FrameworkEntity)
@Module({
  imports: [HistoryModule, MasterModule, ExecutorsModule],
  controllers: [FrameworksController, ExplainController],
  providers: [FrameworksService, FrameworksRepository, FrameworkExplainService],
  exports: [FrameworksService],
})
export class FrameworksModule {}
