import { Module } from '@nestjs/common';
import { MasterModule } from '../master/master.module';
import { ExplainController, HistoryController } from './history.controller';
import { HistoryService } from './history.service';

@Module({
  imports: [MasterModule],
  controllers: [HistoryController, ExplainController],
  providers: [HistoryService],
})
export class HistoryModule {}
