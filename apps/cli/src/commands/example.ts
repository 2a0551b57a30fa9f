/**
 * `arbiter example drf-demo`: the DRF example of the Mesos documentation on a temporary cluster
 * of its own (a control plane on a scratch database and one agent of <9 cpus, 18 GB> running
 * real processes). Prints what happens and ends with one JSON line of what it measured.
 *
 * `arbiter example batch --master URL [--token T] COMMAND...`: runs shell commands as tasks
 * on a running cluster and prints their outcomes; exit 0 when all finished.
 *
 * `arbiter example throttle --master URL [--token T]`: tasks run by a custom executor (the SDK's
 * Executor), several in one process; `arbiter example mesos-throttle --master URL [--token T]`:
 * the same over Mesos's v1 scheduler and executor HTTP APIs (examples/mesos/throttle-*.js).
 *
 * `arbiter example task-group --master URL [--token T]`: task groups under the default executor,
 * one sharing files in its sandbox and one where a task fails and the group is killed.
 *
 * `arbiter example kv`: a key-value service keeping its data on a persistent volume, on a
 * temporary cluster of its own; its server is killed and its agent restarted, and the data is
 * still there. With `--master URL`, the same on a running cluster (without the agent restart).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { onTemporaryCluster } from './example-cluster';
import { registerKv } from './example-kv';

export function register(program: Command): void {
  const example = program.command('example').description('example frameworks: drf-demo, batch, throttle, mesos-throttle, task-group, kv');
  registerKv(example);

  example
    .command('drf-demo')
    .description('the DRF example of the Mesos documentation on a temporary cluster; ends with a JSON line of the result')
    .action(async () => {
      const { DRF_DEMO_CLUSTER, runDrfDemo } = await import('@arbiter/examples');
      const result = await onTemporaryCluster('drf-demo', async (cluster) => {
        // The agent and the schedulers get principals of their own, as on a real cluster.
        const token = await cluster.issueServiceToken('drf-demo-agent');
        const agent = cluster.agent('drf-demo-agent', token, `cpus:${DRF_DEMO_CLUSTER.cpus};mem:${DRF_DEMO_CLUSTER.mem}`);
        try {
          agent.start();
          console.log(`control plane ${cluster.url}; one agent of <9 cpus, 18 GB>`);
          // The frameworks' own token: they report what they see, not what only operators may read.
          return await runDrfDemo({
            master: cluster.url,
            token: await cluster.issueServiceToken('drf-demo', 'FRAMEWORK'),
            cluster: DRF_DEMO_CLUSTER,
          });
        } finally {
          await agent.stop();
        }
      });
      console.log(JSON.stringify(result));
    });

  example
    .command('batch')
    .description('run shell commands as tasks on a running cluster and print their outcomes')
    .requiredOption('--master <urls>', "control plane URL, or its replicas' URLs comma-separated")
    .option('--token <token>', "a framework principal's token (or ARBITER_FRAMEWORK_TOKEN)")
    .option('--role <role>', 'role to run under', 'batch')
    .argument('<commands...>', 'shell commands, one task each')
    .action(async (commands: string[], flags: { master: string; token?: string; role: string }) => {
      const { runBatch } = await import('@arbiter/examples');
      const token = frameworkToken(flags.token, 'batch');
      if (!token) return;
      const outcomes = await runBatch({ master: flags.master, token, commands, role: flags.role });
      console.log(
        JSON.stringify({
          finished: outcomes.filter((o) => o.state === 'FINISHED').length,
          failed: outcomes.filter((o) => o.state !== 'FINISHED').length,
        }),
      );
      if (outcomes.some((o) => o.state !== 'FINISHED')) process.exitCode = 1;
    });

  throttleOptions(
    example
      .command('throttle')
      .description('tasks run by a custom executor on the SDK, several in one process; ends with a JSON line of the result'),
  )
    .option('--role <role>', 'role to run under', 'throttle')
    .action(async (flags: { master: string; token?: string; role: string; tasks: string; throttle: string }) => {
      const { runThrottle } = await import('@arbiter/examples');
      const token = frameworkToken(flags.token, 'throttle');
      if (!token) return;
      // throttle-executor.sh goes here; the agent's task user must reach it, and not under /tmp,
      // which the agent makes private to each executor and task.
      const dir = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'arbiter-throttle-'));
      fs.chmodSync(dir, 0o755);
      try {
        const result = await runThrottle({
          master: flags.master,
          token,
          dir,
          role: flags.role,
          tasks: Number(flags.tasks),
          throttle: Number(flags.throttle),
        });
        console.log(JSON.stringify(result));
        if (result.finished !== result.tasks) process.exitCode = 1;
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

  throttleOptions(
    example
      .command('mesos-throttle')
      .description("the throttle example over Mesos's v1 scheduler and executor HTTP APIs (examples/mesos/throttle-framework.js)"),
  )
    .option('--user <user>', 'the user executors and tasks run as (default: the user running this)')
    .action(async (flags: { master: string; token?: string; tasks: string; throttle: string; user?: string }) => {
      const token = frameworkToken(flags.token, 'throttle');
      if (!token) return;
      const script = path.resolve(__dirname, '../../../../examples/mesos/throttle-framework.js');
      const args = [
        script,
        '--master',
        flags.master,
        '--tasks',
        flags.tasks,
        '--throttle',
        flags.throttle,
        ...(flags.user ? ['--user', flags.user] : []),
      ];
      // The token through the environment, never on a command line others can read.
      const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, ARBITER_FRAMEWORK_TOKEN: token } });
      process.exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    });

  example
    .command('task-group')
    .description(
      'task groups under the default executor: a shared sandbox, and a group killed when one task fails; ends with a JSON line of the result',
    )
    .requiredOption('--master <url>', 'control plane URL')
    .option('--token <token>', "a framework principal's token (or ARBITER_FRAMEWORK_TOKEN)")
    .option('--role <role>', 'role to run under', 'task-group')
    .action(async (flags: { master: string; token?: string; role: string }) => {
      const { runTaskGroup } = await import('@arbiter/examples');
      const token = frameworkToken(flags.token, 'task-group');
      if (!token) return;
      const result = await runTaskGroup({ master: flags.master, token, role: flags.role });
      console.log(JSON.stringify(result));
      // As designed: the shared group finishes, and the failing group fails as one.
      const expected = result.shared.finished === 3 && result.failing.failed === 1 && result.failing.killed === 2;
      if (!expected) process.exitCode = 1;
    });
}

/** The throttle examples' common options. */
function throttleOptions(command: Command): Command {
  return command
    .requiredOption('--master <url>', 'control plane URL')
    .option('--token <token>', "a framework principal's token (or ARBITER_FRAMEWORK_TOKEN)")
    .option('--tasks <n>', 'how many tasks', '6')
    .option('--throttle <n>', 'at most this many tasks at a time in an executor', '2');
}

/** The framework token from --token or ARBITER_FRAMEWORK_TOKEN; undefined (exit code 2) with how to get one. */
function frameworkToken(flag: string | undefined, principal: string): string | undefined {
  const token = flag ?? process.env.ARBITER_FRAMEWORK_TOKEN;
  if (token) return token;
  console.error(
    `--token is required (or set ARBITER_FRAMEWORK_TOKEN): a framework token, e.g. from \`npx arbiter token create --principal ${principal}\` after \`npx arbiter principal create ${principal} --kind framework\``,
  );
  process.exitCode = 2;
  return undefined;
}
