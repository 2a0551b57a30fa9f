import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { ExecutorSpec, ResourceEntry } from '@arbiter/contracts';

export enum ExecutorState {
  RUNNING = 'RUNNING',
  ENDED = 'ENDED',
}

/**
 * An executor on an agent (Mesos's ExecutorInfo): started with the first task of its framework
 * that names its id there, its own resources accounted to the framework until it ends. The
 * relations name the agents' and frameworks' entities by name: those folders sit above this one.
 */
@Entity('executors')
@Index(['agentId'])
@Index(['frameworkId'])
/** One running executor per agent, framework and executor id; an id may run again once it ended. */
@Index('IDX_executors_running', ['agentId', 'frameworkId', 'executorId'], { unique: true, where: `"state" = 'RUNNING'` })
export class ExecutorEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  agentId!: string;

  @ManyToOne('AgentEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'agent_id' })
  agent?: object;

  @Column('text')
  frameworkId!: string;

  @ManyToOne('FrameworkEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'framework_id' })
  framework?: object;

  @Column('text')
  executorId!: string;

  /** The ExecutorInfo as the framework gave it (later tasks naming the id must give the same). */
  @Column('jsonb')
  spec!: ExecutorSpec;

  /** The role whose offered resources its own resources came from. */
  @Column('text')
  role!: string;

  @Column('jsonb')
  resources!: ResourceEntry[];

  @Column({ type: 'enum', enum: ExecutorState, enumName: 'executor_state' })
  state!: ExecutorState;

  @Column('timestamptz')
  startedAt!: Date;

  @Column('timestamptz', { nullable: true })
  endedAt!: Date | null;

  /** Why it ended (Mesos's reason, or what ended it), and how: its exit code or signal. */
  @Column('text', { nullable: true })
  endReason!: string | null;

  @Column('jsonb', { nullable: true })
  exitStatus!: { exitCode?: number; signal?: string; message?: string } | null;
}
