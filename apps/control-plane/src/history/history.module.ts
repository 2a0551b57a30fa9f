import { Module } from '@nestjs/common';
import { ExplainController, HistoryController } from './history.controller';
import { HistoryService } from './history.service';

@Module({
  controllers: [HistoryController, ExplainController],
  providers: [HistoryService],
})
export class HistoryModule {}
