import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { StatusUpdate } from '@arbiter/contracts';
import { TaskEntity, TaskState } from './task.entity';

/** One status update of a task, persisted before it is delivered to the framework. */
@Entity('task_status_updates')
@Index(['taskRef', 'at'])
@Index(['updateUuid'], { unique: true })
// Updates still to be delivered (resent until acknowledged): a small index, in arrival order.
@Index('IDX_task_status_updates_unacknowledged', ['id'], { where: '"acknowledged_at" IS NULL' })
export class TaskStatusUpdateEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  /** The task's row id (tasks.id). */
  @Column('uuid')
  taskRef!: string;

  @ManyToOne(() => TaskEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_ref' })
  task?: TaskEntity;

  @Column({ type: 'enum', enum: TaskState, enumName: 'task_status_update_state' })
  state!: TaskState;

  @Column('text', { nullable: true })
  reason!: string | null;

  @Column('text', { nullable: true })
  message!: string | null;

  /** Who produced it: SOURCE_AGENT, SOURCE_EXECUTOR, SOURCE_MASTER. */
  @Column('text')
  source!: string;

  /** Identifies the update for acknowledgement. */
  @Column('uuid')
  updateUuid!: string;

  @Column('timestamptz')
  at!: Date;

  @Column('timestamptz', { nullable: true })
  acknowledgedAt!: Date | null;

  /**
   * What an executor attached to the update (Mesos's TaskStatus data, healthy, check_status,
   * labels; healthy and check_status from the agent's own checks too): kept so
   * that the update sent again until acknowledged carries them too; null when it has none.
   */
  @Column('jsonb', { nullable: true })
  executorFields!: ExecutorFields | null;
}

/** The parts of an executor's update the framework gets and the master does not act on. */
export type ExecutorFields = Pick<StatusUpdate, 'data' | 'healthy' | 'checkStatus' | 'labels'>;

/** An update's executor fields, or null when it has none. */
export function executorFieldsOf(update: StatusUpdate): ExecutorFields | null {
  const fields: ExecutorFields = {
    ...(update.data !== undefined ? { data: update.data } : {}),
    ...(update.healthy !== undefined ? { healthy: update.healthy } : {}),
    ...(update.checkStatus !== undefined ? { checkStatus: update.checkStatus } : {}),
    ...(update.labels !== undefined ? { labels: update.labels } : {}),
  };
  return Object.keys(fields).length ? fields : null;
}
