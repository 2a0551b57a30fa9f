/**
 * `arbiter start` (what `npm start` runs): a working local cluster in one command. It runs the
 * control plane on the embedded PostgreSQL (or DATABASE_URL), prints the URLs and the admin
 * token, and stops everything cleanly on Ctrl-C. Takes the control plane's settings.
 */
import type { Command } from 'commander';
import { addSettingFlags, configOrExit, printAdminToken, settingFlags, untilSignal } from './control-plane';

export function register(program: Command): void {
  const command = program.command('start').description('run a local cluster: the control plane on an embedded PostgreSQL (Ctrl-C stops it)');
  addSettingFlags(command).action(async (opts: Record<string, string | undefined>) => {
    const cp: typeof import('@arbiter/control-plane') = require('@arbiter/control-plane');
    const config = configOrExit(cp, settingFlags(opts));
    if (!config) return;
    const controlPlane = await cp.startControlPlane(config);
    console.log('');
    console.log('Arbiter is running.');
    console.log(`  control plane: ${controlPlane.url}`);
    console.log(`  REST API:      ${controlPlane.url}/api/v1`);
    console.log(`  Swagger UI:    ${controlPlane.url}/api/docs`);
    console.log(`  database:      ${controlPlane.database.kind === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}`);
    printAdminToken(controlPlane.admin);
    console.log('Press Ctrl-C to stop.');
    const signal = await untilSignal();
    console.log(`\n${signal}: stopping`);
    await controlPlane.close();
    console.log('stopped');
  });
}
