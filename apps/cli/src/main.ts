/**
 * Entry of the `arbiter` command-line tool. Each subcommand lives in its own module under
 * `commands/` and loads its heavy dependencies (NestJS, the agent, Chromium) with `import()` only
 * when it runs, so `arbiter simulate` never loads NestJS.
 * A command reports failure by setting `process.exitCode`.
 */
import { Command, CommanderError } from 'commander';
import * as access from './commands/access';
import * as agent from './commands/agent';
import * as bench from './commands/bench';
import * as clusterHa from './commands/cluster-ha';
import * as controlPlane from './commands/control-plane';
import * as dashboard from './commands/dashboard';
import * as db from './commands/db';
import * as example from './commands/example';
import * as openapi from './commands/openapi';
import * as operator from './commands/ops';
import * as simulate from './commands/simulate';
import * as start from './commands/start';
import * as task from './commands/task';

/** A subcommand module registers itself (name, options, a lazily loaded action). */
interface CommandModule {
  register(program: Command): void;
}

const COMMANDS: CommandModule[] = [
  simulate,
  db,
  controlPlane,
  start,
  clusterHa,
  dashboard,
  agent,
  example,
  openapi,
  bench,
  access,
  task,
  operator,
];

function buildProgram(): Command {
  const program = new Command('arbiter')
    .description('Arbiter: a two-level cluster resource manager with a Hierarchical DRF allocator')
    .showHelpAfterError()
    .exitOverride()
    // Options after a subcommand's name are the subcommand's: `arbiter agent drain ID --master URL`
    // is drain's --master, not that of `arbiter agent` (which runs an agent).
    .enablePositionalOptions();
  for (const command of COMMANDS) command.register(program);
  return program;
}

/** Runs the tool; resolves to the process exit code (2 for a usage error). */
export async function main(argv: string[]): Promise<number | undefined> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  return undefined;
}
