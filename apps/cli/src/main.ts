/**
 * Entry of the `arbiter` command-line tool. Each subcommand lives in its own module under
 * `commands/`, loaded only when its command runs (COMMANDS), and loads its heavy dependencies
 * (NestJS, the agent, Chromium) with `import()` only when it runs, so `arbiter simulate` never
 * loads NestJS.
 * A command reports failure by setting `process.exitCode`.
 */
import { Command, CommanderError } from 'commander';

/** A subcommand module registers itself (name, options, a lazily loaded action). */
export interface CommandModule {
  register(program: Command): void;
}

/**
 * Each command module and the top-level commands it registers, in the order of `arbiter --help`.
 * A run loads only the module of the command it names (`arbiter agents list` loads neither the
 * allocator nor the control plane's settings); help, completion and a name not listed load them
 * all. main.spec.ts checks that the names are those each module registers.
 */
export const COMMANDS: ReadonlyArray<{ names: readonly string[]; load: () => Promise<CommandModule> }> = [
  { names: ['simulate'], load: () => import('./commands/simulate.ts') },
  { names: ['db'], load: () => import('./commands/db.ts') },
  { names: ['control-plane'], load: () => import('./commands/control-plane.ts') },
  { names: ['start'], load: () => import('./commands/start.ts') },
  { names: ['cluster-ha', 'compose'], load: () => import('./commands/cluster-ha.ts') },
  { names: ['dashboard'], load: () => import('./commands/dashboard.ts') },
  { names: ['agent'], load: () => import('./commands/agent.ts') },
  { names: ['example'], load: () => import('./commands/example.ts') },
  { names: ['openapi'], load: () => import('./commands/openapi.ts') },
  { names: ['bench'], load: () => import('./commands/bench.ts') },
  { names: ['principal', 'token'], load: () => import('./commands/access.ts') },
  { names: ['task'], load: () => import('./commands/task.ts') },
  {
    names: [
      ...['agents', 'frameworks', 'explain', 'offers', 'tasks', 'roles', 'quota', 'weights', 'reserve', 'unreserve', 'reservations'],
      ...['maintenance', 'whitelist', 'audit', 'history', 'completion'],
    ],
    load: () => import('./commands/ops/index.ts'),
  },
];

/** `arbiter completion` writes every command into its script. */
const NEEDS_ALL = 'completion';

/** The modules a run needs: the one that registers the command named first, else all (help, completion, a mistyped name). */
function modulesFor(argv: readonly string[]): ReadonlyArray<(typeof COMMANDS)[number]> {
  const named = argv[0];
  const owner = named === NEEDS_ALL ? undefined : COMMANDS.find((c) => c.names.includes(named));
  return owner ? [owner] : COMMANDS;
}

/** The program with the commands `argv` needs (every command when `argv` is left out). */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('arbiter')
    .description('Arbiter: a two-level cluster resource manager with a Hierarchical DRF allocator')
    .showHelpAfterError()
    .exitOverride()
    // Options after a subcommand's name are the subcommand's: `arbiter agent drain ID --master URL`
    // is drain's --master, not that of `arbiter agent` (which runs an agent).
    .enablePositionalOptions();
  for (const m of await Promise.all(modulesFor(argv).map((c) => c.load()))) m.register(program);
  return program;
}

/** Runs the tool; resolves to the process exit code (2 for a usage error). */
export async function main(argv: string[]): Promise<number | undefined> {
  try {
    await (await buildProgram(argv)).parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  return undefined;
}
