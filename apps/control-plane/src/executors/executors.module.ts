/** Executors: the list for operators, and the master's handler that starts and ends them (executors.handler.ts). */
import { Module } from '@nestjs/common';
import { OwnsEntities } from '../database/database.entities';
import { ExecutorEntity } from './executor.entity';
import { ExecutorsController } from './executors.controller';
import { ExecutorListRepository, ExecutorsRepository } from './executors.repository';
import { Executors } from './executors.handler';
import { MasterModule } from '../master/master.module';
import { ExecutorsService } from './executors.service';

@OwnsEntities(ExecutorEntity)
@Module({
  imports: [MasterModule],
  controllers: [ExecutorsController],
  providers: [ExecutorsService, ExecutorListRepository, ExecutorsRepository, Executors],
  exports: [ExecutorsService, Executors],
})
export class ExecutorsModule {}
