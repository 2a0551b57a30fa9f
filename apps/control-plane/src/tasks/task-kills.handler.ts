/**
 * Kills of tasks, by their framework or an operator: SIGTERM then SIGKILL at the agent; a task
 * not running anywhere yet is KILLED here.
 */
import { isTerminalTaskState, type Kill, PROTOCOL_ERRORS } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import { Outbox } from '../master/outbox';
import { type TaskEntity, TaskState } from './task.entity';
import { TaskUpdates } from './task-updates.handler';
import { TasksRepository } from './tasks.repository';

@Injectable()
export class TaskKills {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly tasks: TasksRepository,
    private readonly updates: TaskUpdates,
    private readonly outbox: Outbox,
  ) {}

  kill(socket: FrameworkConnection, msg: Kill): Promise<void> {
    return this.kernel.exclusive(async () => {
      const fw = this.state.frameworkOf(socket);
      const task = await this.tasks.find(fw.id, msg.taskId);
      if (!task) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_TASK, `the framework has no task '${msg.taskId}'`);
      await this.killTask(task, msg.gracePeriodSeconds);
    });
  }

  /** An operator's kill (REST): as the framework's own, in the serial order. */
  killById(frameworkId: string, taskId: string, gracePeriodSeconds?: number): Promise<void> {
    return this.kernel.exclusive(async () => {
      const task = await this.tasks.find(frameworkId, taskId);
      if (task) await this.killTask(task, gracePeriodSeconds);
    });
  }

  /** SIGTERM then SIGKILL at the agent; a task not running anywhere yet is KILLED here. */
  private async killTask(task: TaskEntity, gracePeriodSeconds?: number): Promise<void> {
    if (isTerminalTaskState(task.state)) return;
    const connected = this.state.agents.get(task.agentId)?.socket !== undefined;
    if (connected && task.state !== TaskState.STAGING) {
      await this.updates.killing([task]);
      this.outbox.kill(task.agentId, [task], gracePeriodSeconds);
    } else {
      // Not running anywhere yet (or its agent is away): killed here.
      this.outbox.kill(task.agentId, [task], 0);
      await this.updates.masterUpdate([task], TaskState.KILLED, 'REASON_TASK_KILLED_DURING_LAUNCH', 'killed before it started');
    }
  }
}
