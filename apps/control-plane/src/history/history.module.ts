/** Allocation history (cycles, shares, export), why a framework got offers or not, and its retention. */
import { Module } from '@nestjs/common';
import { FrameworksModule } from '../frameworks/frameworks.module';
import { MasterModule } from '../master/master.module';
import { ExplainController } from './framework-explain.controller';
import { FrameworkExplainService } from './framework-explain.service';
import { HistoryController } from './history.controller';
import { HistoryRepository } from './history.repository';
import { HistoryService } from './history.service';
import { Retention } from './retention.handler';
import { RetentionRepository } from './retention.repository';

@Module({
  imports: [MasterModule, FrameworksModule],
  controllers: [HistoryController, ExplainController],
  providers: [HistoryService, HistoryRepository, FrameworkExplainService, Retention, RetentionRepository],
  exports: [Retention],
})
export class HistoryModule {}
