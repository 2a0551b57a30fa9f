/** Sandbox files: a task's sandbox on its agent, browsed, read and downloaded through the control plane. */
import { Module } from '@nestjs/common';
import { MasterModule } from '../master/master.module';
import { TasksModule } from '../tasks/tasks.module';
import { MesosFilesController } from './mesos-files.controller';
import { SandboxesController } from './sandboxes.controller';
import { SandboxesService } from './sandboxes.service';

@Module({
  imports: [MasterModule, TasksModule],
  controllers: [SandboxesController, MesosFilesController],
  providers: [SandboxesService],
  exports: [SandboxesService],
})
export class SandboxesModule {}
