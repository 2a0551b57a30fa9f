/** Tasks for operators: lists and state history (the master's handlers launch them and record their updates). */
import { Module } from '@nestjs/common';
import { TasksController } from './tasks.controller';
import { TaskListRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

@Module({ controllers: [TasksController], providers: [TasksService, TaskListRepository], exports: [TasksService] })
export class TasksModule {}
