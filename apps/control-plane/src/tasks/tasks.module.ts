/** Tasks for operators: lists and state history (the master's handlers launch them and record their updates). */
import { Module } from '@nestjs/common';
import { TasksController } from './tasks.controller';
import { TaskListRepository } from './tasks.repository';
import { TasksService } from './tasks.service';
import { OwnsEntities } from '../database/database.entities';
import { TaskEntity } from './task.entity';
import { TaskStatusUpdateEntity } from './task-status-update.entity';
import { MasterModule } from '../master/master.module';

@OwnsEntities(TaskEntity, TaskStatusUpdateEntity)
@Module({ imports: [MasterModule], controllers: [TasksController], providers: [TasksService, TaskListRepository], exports: [TasksService] })
export class TasksModule {}
