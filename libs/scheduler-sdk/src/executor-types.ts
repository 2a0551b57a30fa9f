/** What the agent's executor API carries, in Mesos's v1 JSON form (see executor.ts). */

/** A Mesos id object ({ value }). */
export interface MesosId {
  value: string;
}

/** A task as the executor receives it (Mesos's TaskInfo in its JSON form). */
export interface ExecutorTaskInfo {
  name: string;
  task_id: MesosId;
  agent_id: MesosId;
  resources?: unknown[];
  command?: {
    value?: string;
    arguments?: string[];
    shell?: boolean;
    environment?: { variables?: Array<{ name: string; value?: string }> };
  };
  /** Base64. */
  data?: string;
  labels?: { labels?: Array<{ key: string; value?: string }> };
  [field: string]: unknown;
}

/** The first event on the stream: who the executor is and where it runs. */
export interface Subscribed {
  executor_info: { executor_id: MesosId; framework_id?: MesosId; data?: string; [field: string]: unknown };
  framework_info: { id?: MesosId; name: string; user?: string; [field: string]: unknown };
  agent_info: { id?: MesosId; hostname: string; [field: string]: unknown };
  container_id?: MesosId;
}

export type ExecutorTaskState =
  | 'TASK_STARTING'
  | 'TASK_RUNNING'
  | 'TASK_FINISHED'
  | 'TASK_FAILED'
  | 'TASK_KILLING'
  | 'TASK_KILLED'
  | 'TASK_ERROR'
  | 'TASK_LOST'
  | 'TASK_DROPPED'
  | 'TASK_GONE';
