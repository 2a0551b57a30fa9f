/**
 * Entry of the `arbiter` command-line tool. Each subcommand lives in its own module under
 * `commands/` and is loaded only when it runs, so `arbiter simulate` never loads NestJS.
 * A command reports failure by setting `process.exitCode`.
 */
import { Command, CommanderError } from 'commander';

/** A subcommand module registers itself (name, options, a lazily loaded action). */
export interface CommandModule {
  register(program: Command): void;
}

const COMMANDS: Array<() => CommandModule> = [
  () => require('./commands/simulate'),
  () => require('./commands/db'),
  () => require('./commands/control-plane'),
  () => require('./commands/start'),
  () => require('./commands/dashboard'),
  () => require('./commands/agent'),
  () => require('./commands/example'),
  () => require('./commands/openapi'),
  () => require('./commands/bench'),
];

export function buildProgram(): Command {
  const program = new Command('arbiter')
    .description('Arbiter: a two-level cluster resource manager with a Hierarchical DRF allocator')
    .showHelpAfterError()
    .exitOverride();
  for (const load of COMMANDS) load().register(program);
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
