/**
 * How long the control plane remembers what has ended: allocation history, ended tasks, and
 * agents that left (docs/operations.md, "Retention"). The leader prunes past these ages in small
 * batches (history/retention.handler.ts).
 */
import { numberIn } from './config.values';

export interface RetentionConfig {
  /** Days of allocation history (cycles, traces, shares) kept. */
  historyRetentionDays: number;
  /** Days ended tasks (with their status updates) are kept. */
  taskRetentionDays: number;
  /**
   * Days an agent that is unreachable or gone, with no task left that is live or still kept, is
   * remembered (Mesos's --registry_max_agent_age); then its record goes.
   */
  agentRetentionDays: number;
}

export const RETENTION_SETTINGS = [
  {
    key: 'historyRetentionDays',
    env: 'ARBITER_HISTORY_RETENTION_DAYS',
    flag: '--history-retention-days',
    description: 'days of allocation history kept',
    default: 7,
    schema: numberIn(0.001, 3650),
  },
  {
    key: 'taskRetentionDays',
    env: 'ARBITER_TASK_RETENTION_DAYS',
    flag: '--task-retention-days',
    description: 'days ended tasks and their status updates are kept',
    default: 7,
    schema: numberIn(0.001, 3650),
  },
  {
    key: 'agentRetentionDays',
    env: 'ARBITER_AGENT_RETENTION_DAYS',
    flag: '--agent-retention-days',
    description:
      "days an unreachable or gone agent is remembered once none of its tasks is live or kept (Mesos's --registry_max_agent_age, 2 weeks)",
    default: 14,
    schema: numberIn(0.001, 3650),
  },
] as const;
