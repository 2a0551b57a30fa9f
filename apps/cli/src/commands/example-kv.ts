/**
 * `arbiter example kv`: the key-value service on a persistent volume (examples/kv.ts). Without
 * `--master`, on a temporary cluster of its own (a control plane on a scratch database and one
 * agent with disk and ports), where it also restarts the agent; ends with one JSON line of what
 * it read back, exit 0 when the data survived every step.
 */
import type { Command } from 'commander';
import { onTemporaryCluster } from './example-cluster';

export function registerKv(example: Command): void {
  example
    .command('kv')
    .description('a key-value service on a persistent volume: survives its server being killed and its agent restarting')
    .option('--master <urls>', 'a running cluster (default: a temporary one of its own)')
    .option('--token <token>', "a framework principal's token on a running cluster (or ARBITER_FRAMEWORK_TOKEN)")
    .option('--role <role>', 'role to reserve disk for', 'kv')
    .action(async (flags: { master?: string; token?: string; role: string }) => {
      const { runKvDemo } = await import('@arbiter/examples');
      const check = (r: { afterKill: string | null; afterAgentRestart: string | null }, restarted: boolean) => {
        console.log(JSON.stringify(r));
        if (!r.afterKill || (restarted && r.afterAgentRestart !== r.afterKill)) process.exitCode = 1;
      };
      if (flags.master) {
        const token = flags.token ?? process.env.ARBITER_FRAMEWORK_TOKEN;
        if (!token) {
          console.error('--token is required with --master (or set ARBITER_FRAMEWORK_TOKEN): a framework token');
          process.exitCode = 2;
          return;
        }
        check(await runKvDemo({ master: flags.master, token, role: flags.role }), false);
        return;
      }
      check(await onItsOwnCluster(flags.role), true);
    });
}

/** On a temporary cluster of its own (example-cluster.ts), with one agent it restarts midway. */
function onItsOwnCluster(role: string) {
  return onTemporaryCluster('kv', async (cluster) => {
    const { runKvDemo } = await import('@arbiter/examples');
    const agentToken = await cluster.issueServiceToken('kv-agent');
    const makeAgent = () => cluster.agent('kv-agent', agentToken, 'cpus:2;mem:1024;disk:512;ports:[31700-31720]');
    let agent = makeAgent();
    try {
      agent.start();
      console.log(`control plane ${cluster.url}; one agent with 512 MB of disk`);
      return await runKvDemo({
        master: cluster.url,
        token: await cluster.issueServiceToken('kv', 'FRAMEWORK'),
        role,
        host: '127.0.0.1',
        restartAgent: async () => {
          await agent.stop();
          agent = makeAgent();
          agent.start();
        },
      });
    } finally {
      await agent.stop();
    }
  });
}
