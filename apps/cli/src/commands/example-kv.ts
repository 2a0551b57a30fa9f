/**
 * `arbiter example kv`: the key-value service on a persistent volume (examples/kv.ts). Without
 * `--master`, on a temporary cluster of its own (a control plane on a scratch database and one
 * agent with disk and ports), where it also restarts the agent; ends with one JSON line of what
 * it read back, exit 0 when the data survived every step.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';

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
      check(await onTemporaryCluster(flags.role), true);
    });
}

async function onTemporaryCluster(role: string) {
  const cp = await import('@arbiter/control-plane');
  const { Agent } = await import('@arbiter/agent');
  const { parseResources } = await import('@arbiter/allocator');
  const { runKvDemo } = await import('@arbiter/examples');
  const { default: pino } = await import('pino');
  // Not under /tmp: tasks get a private /tmp, and the agent's volumes must stay reachable.
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'arbiter-kv-'));
  fs.chmodSync(dir, 0o711);
  const token = `kv-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const silent = pino({ level: 'silent' });
  console.log(`starting a temporary cluster in ${dir} ...`);
  const run = async (databaseUrl: string | undefined) => {
    const config = {
      ...cp.loadConfig({}),
      port: 0,
      dataDir: dir,
      databaseUrl,
      adminToken: token,
      allocationInterval: 0.2,
      logLevel: 'silent' as const,
    };
    const controlPlane = await cp.startControlPlane(config);
    const agentToken = await controlPlane.issueServiceToken('kv-agent');
    const makeAgent = () =>
      new Agent({
        master: controlPlane.url,
        token: agentToken,
        hostname: 'kv-agent',
        resources: parseResources('cpus:2;mem:1024;disk:512;ports:[31700-31720]').toJSON(),
        attributes: {},
        workDir: path.join(dir, 'agent'),
        killTasksOnExit: true,
        logger: silent,
      });
    let agent = makeAgent();
    try {
      agent.start();
      console.log(`control plane ${controlPlane.url}; one agent with 512 MB of disk`);
      return await runKvDemo({
        master: controlPlane.url,
        token: await controlPlane.issueServiceToken('kv', 'FRAMEWORK'),
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
      await controlPlane.close();
    }
  };
  try {
    return process.env.DATABASE_URL ? await cp.withScratchDatabase(process.env.DATABASE_URL, (url) => run(url)) : await run(undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
