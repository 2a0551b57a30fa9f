/**
 * A template hook module (docs/modules.md): before the control plane launches a task, it adds
 * labels and environment variables, and refuses tasks that lack a label the cluster requires.
 * Parameters:
 *
 *   { "labels": { "cluster": "eu-1" },        labels added to every task (replacing the task's own)
 *     "environment": { "DC": "eu-1" },        variables added to its environment
 *     "requireLabel": "cost-centre" }         a task without this label is refused (TASK_ERROR)
 *
 * Copy this folder to start a module of your own: one default export made by defineModule,
 * the points it implements, the API version it was written for, and `create` returning one
 * function per point.
 */
import { defineModule, MODULE_API_VERSION, type TaskLaunchDecision } from '@arbiter/modules';

const strings = (value: unknown, name: string): Record<string, string> => {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string'))
    throw new Error(`parameter "${name}" must be an object of strings`);
  return value as Record<string, string>;
};

export default defineModule({
  name: 'launch-policy',
  apiVersion: MODULE_API_VERSION,
  points: ['control-plane:task-launch'],
  create(parameters, context) {
    const labels = Object.entries(strings(parameters.labels, 'labels')).map(([key, value]) => ({ key, value }));
    const environment = strings(parameters.environment, 'environment');
    const required = typeof parameters.requireLabel === 'string' ? parameters.requireLabel : undefined;
    context.log('launch policy ready', { labels: labels.length, requireLabel: required ?? null });
    return {
      taskLaunch: (input): TaskLaunchDecision => {
        if (required !== undefined && !input.task.labels.some((l) => l.key === required))
          return { refuse: `task '${input.task.taskId}' has no '${required}' label, which this cluster requires` };
        return { labels, environment };
      },
    };
  },
});
