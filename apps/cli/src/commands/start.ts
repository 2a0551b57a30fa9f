/**
 * `arbiter start` (what `npm start` runs): a working local cluster in one command. It runs the
 * control plane on the embedded PostgreSQL (or DATABASE_URL) and one agent offering this
 * machine's resources, prints the URLs and the admin token, and on Ctrl-C stops the agent
 * (killing its tasks) and then the control plane. Takes the control plane's settings.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { addSettingFlags, configOrExit, printAdminToken, settingFlags, untilSignal } from './control-plane';

export function register(program: Command): void {
  const command = program.command('start').description("run a local cluster: the control plane on an embedded PostgreSQL and an agent with this machine's resources (Ctrl-C stops it)");
  addSettingFlags(command)
    .option('--no-agent', 'do not start the local agent')
    .action(async (opts: Record<string, string | undefined> & { agent?: boolean }) => {
      const cp: typeof import('@arbiter/control-plane') = require('@arbiter/control-plane');
      const config = configOrExit(cp, settingFlags(opts));
      if (!config) return;
      const controlPlane = await cp.startControlPlane(config);
      let agent: import('@arbiter/agent').Agent | undefined;
      if (opts.agent !== false) {
        const { Agent, detectResources } = require('@arbiter/agent') as typeof import('@arbiter/agent');
        const { parseResources } = require('@arbiter/allocator') as typeof import('@arbiter/allocator');
        const pino = require('pino') as typeof import('pino').default;
        const workDir = path.join(config.dataDir, 'agent');
        const resources = parseResources(detectResources(workDir));
        const token = await controlPlane.issueServiceToken('local-agent');
        agent = new Agent({ master: controlPlane.url, token, hostname: os.hostname(), resources: resources.toJSON(), attributes: {}, workDir, killTasksOnExit: true, logger: pino({ name: 'arbiter-agent', level: config.logLevel }) });
        agent.start();
      }
      console.log('');
      console.log('Arbiter is running.');
      console.log(`  control plane: ${controlPlane.url}`);
      console.log(`  REST API:      ${controlPlane.url}/api/v1`);
      console.log(`  Swagger UI:    ${controlPlane.url}/api/docs`);
      console.log(`  database:      ${controlPlane.database.kind === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}`);
      if (agent) console.log(`  local agent:   ${os.hostname()}, work dir ${path.join(config.dataDir, 'agent')}`);
      printAdminToken(controlPlane.admin);
      console.log('Press Ctrl-C to stop.');
      const signal = await untilSignal();
      console.log(`\n${signal}: stopping`);
      await agent?.stop();
      await controlPlane.close();
      console.log('stopped');
    });
}
