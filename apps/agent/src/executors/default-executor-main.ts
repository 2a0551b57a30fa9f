/** The default executor's process (apps/agent/bin/default-executor.js): see default-executor.ts. */
import { durationSeconds, Executor } from '@arbiter/scheduler-sdk';
import { DefaultExecutor } from './default-executor';
import type { AgentApi } from './nested-task';

export async function main(): Promise<void> {
  const executor = new Executor();
  // The tasks inherit the executor's environment, but not its credential: they cannot speak as it.
  const env = { ...process.env };
  delete env.MESOS_EXECUTOR_AUTHENTICATION_TOKEN;
  // Tasks in images of their own are its nested containers, asked for on the agent API with its credential.
  const token = process.env.MESOS_EXECUTOR_AUTHENTICATION_TOKEN;
  const endpoint = process.env.MESOS_AGENT_ENDPOINT;
  const agent: AgentApi | undefined = token && endpoint ? { token, endpoint } : undefined;
  executor.on('subscribed', (s) => {
    if (agent) agent.parent = s.container_id?.value;
  });
  // The tasks' grace period fits in the executor's own, as Mesos's default executor does.
  const grace = durationSeconds(process.env.MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD);
  new DefaultExecutor(executor, {
    sandbox: process.env.MESOS_SANDBOX ?? process.cwd(),
    env,
    ...(agent ? { agent } : {}),
    ...(grace !== undefined && grace > 1 ? { gracePeriodSeconds: grace - 1 } : {}),
    onIdle: () => {
      executor.close();
      process.exit(0);
    },
  });
  executor.on('error', (err) => console.error(`default executor: ${err.message}`));
  await executor.start();
}
