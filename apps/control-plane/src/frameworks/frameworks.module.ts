import { Module } from '@nestjs/common';
import { MasterModule } from '../master/master.module';
import { FrameworksController, OffersController, TasksController } from './frameworks.controller';
import { FrameworksService } from './frameworks.service';

@Module({
  imports: [MasterModule],
  controllers: [FrameworksController, OffersController, TasksController],
  providers: [FrameworksService],
  exports: [FrameworksService],
})
export class FrameworksModule {}
