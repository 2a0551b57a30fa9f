/**
 * `arbiter control-plane`: runs the control plane alone (REST API, Swagger UI, the allocation
 * loop) on DATABASE_URL or the embedded PostgreSQL server. Every setting is an environment
 * variable with a matching flag; a wrong one stops the process with a message naming it.
 */
import type { Command } from 'commander';
import { type AppConfig, ConfigError, loadConfig, SETTINGS } from '@arbiter/control-plane/config';
import { refuse } from '../ops/errors';
import { untilSignal } from '../signals';

type ControlPlaneModule = typeof import('@arbiter/control-plane');

/** Adds one flag per configuration setting. */
export function addSettingFlags(command: Command): Command {
  for (const s of SETTINGS) {
    const flag = `${s.flag} <value>`;
    const def = s.default;
    const shown = typeof def === 'object' ? JSON.stringify(def) : String(def);
    const description = `${s.description} (env ${s.env}${def !== undefined ? `, default ${shown}` : ''})`;
    command.option(flag, description);
  }
  return command;
}

/** Flags given on the command line, by setting key. */
export function settingFlags(opts: Record<string, string | undefined>): Partial<Record<keyof AppConfig, string>> {
  const out: Partial<Record<keyof AppConfig, string>> = {};
  for (const s of SETTINGS) {
    const camel = s.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[camel] !== undefined) out[s.key] = opts[camel];
  }
  return out;
}

/**
 * Loads the configuration or prints what is wrong and returns undefined (exit code 2). It needs
 * only the configuration's module: a wrong setting stops the process before the control plane
 * (NestJS, TypeORM, every noun) is loaded.
 */
export function configOrExit(flags: Partial<Record<keyof AppConfig, string>>): AppConfig | undefined {
  try {
    return loadConfig(process.env, flags);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    refuse(err.message, 2);
    return undefined;
  }
}

/** Prints the admin token line; `keptIn` names the file a local cluster keeps a generated token in. */
export function printAdminToken(admin: { source: string; token?: string }, keptIn?: string): void {
  if (admin.token) {
    console.log(`  admin token:   ${admin.token}`);
    console.log(
      keptIn
        ? `                 (kept in ${keptIn}; sign in to the dashboard with it)`
        : '                 (shown once: it is stored only as a hash; keep it, or set ARBITER_ADMIN_TOKEN)',
    );
  } else if (admin.source === 'env') {
    console.log('  admin token:   the value of ARBITER_ADMIN_TOKEN');
  } else {
    console.log('  admin token:   the one printed on first start (or set ARBITER_ADMIN_TOKEN)');
  }
}

export function register(program: Command): void {
  const command = program
    .command('control-plane')
    .description('run the control plane (REST API, Swagger UI) on DATABASE_URL or an embedded PostgreSQL');
  addSettingFlags(command).action(async (opts: Record<string, string | undefined>) => {
    const config = configOrExit(settingFlags(opts));
    if (!config) return;
    const cp = await import('@arbiter/control-plane');
    const running = await startOrExplain(cp, config);
    if (!running) return;
    console.log(`Arbiter control plane on ${running.url}`);
    console.log(`  REST API:      ${running.url}/api/v1`);
    console.log(`  Swagger UI:    ${running.url}/api/docs`);
    console.log(
      `  database:      ${running.database.kind === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}`,
    );
    printAdminToken(running.admin);
    const signal = await untilSignal();
    console.log(`${signal}: stopping`);
    await running.close();
  });
}

/**
 * Starts the control plane; a failure to start is one sentence on stderr and exit code 1 (its
 * stack only at LOG_LEVEL=debug or trace), not an unhandled error.
 */
export async function startOrExplain(
  cp: ControlPlaneModule,
  config: AppConfig,
): Promise<Awaited<ReturnType<ControlPlaneModule['startControlPlane']>> | undefined> {
  try {
    return await cp.startControlPlane(config);
  } catch (err) {
    refuse(`the control plane did not start: ${err instanceof Error ? err.message : String(err)}`, 1);
    if (err instanceof Error && (config.logLevel === 'debug' || config.logLevel === 'trace')) console.error(err.stack);
    return undefined;
  }
}
