/** Tasks: lists and state history for operators, and the master's handlers that record their status updates and kill them. */
import { Module } from '@nestjs/common';
import { TasksController } from './tasks.controller';
import { TaskListRepository, TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';
import { OwnsEntities } from '../database/database.entities';
import { TaskEntity } from './task.entity';
import { TaskStatusUpdateEntity } from './task-status-update.entity';
import { MasterModule } from '../master/master.module';
import { TaskKills } from './task-kills.handler';
import { TaskUpdates } from './task-updates.handler';

@OwnsEntities(TaskEntity, TaskStatusUpdateEntity)
@Module({
  imports: [MasterModule],
  controllers: [TasksController],
  providers: [TasksService, TaskListRepository, TasksRepository, TaskUpdates, TaskKills],
  exports: [TasksService, TaskListRepository, TasksRepository, TaskUpdates, TaskKills],
})
export class TasksModule {}
