import { Module } from '@nestjs/common';
import { FrameworksController } from './frameworks.controller';
import { FrameworksRepository } from './frameworks.repository';
import { FrameworksService } from './frameworks.service';
import { OwnsEntities } from '../database/database.entities';
import { FrameworkEntity } from './framework.entity';
import { MasterModule } from '../master/master.module';
import { ExecutorsModule } from '../executors/executors.module';

@OwnsEntities(FrameworkEntity)
@Module({
  imports: [MasterModule, ExecutorsModule],
  controllers: [FrameworksController],
  providers: [FrameworksService, FrameworksRepository],
  exports: [FrameworksService, FrameworksRepository],
})
export class FrameworksModule {}
