/** Executors for operators: the list (the master's handler starts and ends them: executors.handler.ts). */
import { Module } from '@nestjs/common';
import { OwnsEntities } from '../database/database.entities';
import { ExecutorEntity } from './executor.entity';
import { ExecutorsController } from './executors.controller';
import { ExecutorListRepository } from './executors.repository';
import { ExecutorsService } from './executors.service';

@OwnsEntities(ExecutorEntity)
@Module({ controllers: [ExecutorsController], providers: [ExecutorsService, ExecutorListRepository], exports: [ExecutorsService] })
export class ExecutorsModule {}
