import { Module } from '@nestjs/common';
import { FrameworksController, OffersController, TasksController } from './frameworks.controller';
import { FrameworksService } from './frameworks.service';

@Module({
  controllers: [FrameworksController, OffersController, TasksController],
  providers: [FrameworksService],
  exports: [FrameworksService],
})
export class FrameworksModule {}
