import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import type { CheckStatus, ContainerSpec, Discovery, Label } from '@arbiter/contracts';
import { TaskState } from '../master/task-state';
import { AgentEntity } from '../agents/agent.entity';
import { FrameworkEntity } from '../frameworks/framework.entity';

export { TaskState, TERMINAL_TASK_STATES, TERMINAL_TASK_STATES_SQL } from '../master/task-state';

/** A task launched by a framework on an agent; `taskId` is the framework's own name for it. */
@Entity('tasks')
@Unique(['frameworkId', 'taskId'])
@Index(['agentId'])
@Index(['state'])
/** Lists newest first. */
@Index(['createdAt'])
/** Ended tasks by the time they ended, for pruning past the task retention. */
// By state, then age: ended tasks past the retention, whatever states count as ended (no
// predicate naming them, so adding a state needs no new index).
@Index('IDX_tasks_ended', ['state', 'updatedAt'])
export class TaskEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  taskId!: string;

  @Column('text')
  frameworkId!: string;

  @ManyToOne(() => FrameworkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'framework_id' })
  framework?: FrameworkEntity;

  @Column('text')
  agentId!: string;

  @ManyToOne(() => AgentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: AgentEntity;

  @Column('text')
  name!: string;

  @Column('text')
  role!: string;

  @Column('jsonb')
  resources!: ResourceEntry[];

  /** What the agent runs (command line, environment, limits). */
  @Column('jsonb', { nullable: true })
  command!: Record<string, unknown> | null;

  /**
   * The OS user it runs as: its spec's, else its framework's (checked against the run_tasks
   * ACL). Null: neither named one, and the agent runs it as the framework's own dynamic user.
   */
  @Column('text', { nullable: true })
  user?: string | null;

  /** The framework's labels of the task (Mesos's TaskInfo.labels); null: none. */
  @Column('jsonb', { nullable: true })
  labels?: Label[] | null;

  /** How service discovery finds it (Mesos's DiscoveryInfo), stored and shown, not acted on; null: none. */
  @Column('jsonb', { nullable: true })
  discovery?: Discovery | null;

  /** The size in bytes of the data handed to its executor (the bytes are kept in its command, never returned by the API); null: none. */
  @Column('integer', { nullable: true })
  dataBytes?: number | null;

  /** Seconds between SIGTERM and SIGKILL when a kill names none (its kill policy); null: the default. */
  @Column('double precision', { nullable: true })
  killGracePeriodSeconds?: number | null;

  /** Killed and FAILED when still running this long after it started (enforced by its agent); null: no limit. */
  @Column('double precision', { nullable: true })
  maxCompletionTimeSeconds?: number | null;

  /** Its container (an image, volumes, port mappings), as the framework gave it; null: a plain process. */
  @Column('jsonb', { nullable: true })
  container?: ContainerSpec | null;

  /** The image its agent runs for it, as the agent reported (normalized reference, manifest digest); null: none reported. */
  @Column('jsonb', { nullable: true })
  containerImage?: { reference: string; digest: string } | null;

  @Column({ type: 'enum', enum: TaskState, enumName: 'task_state' })
  state!: TaskState;

  /** What its health check said last (Mesos's TaskStatus.healthy); null: it has none, or none has answered yet. */
  @Column('boolean', { nullable: true })
  healthy?: boolean | null;

  /** Its general check's last result (Mesos's CheckStatusInfo); null: it has none. */
  @Column('jsonb', { nullable: true })
  checkStatus?: CheckStatus | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
