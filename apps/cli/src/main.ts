/**
 * Entry of the `arbiter` command-line tool. Each subcommand lives in its own module under
 * `commands/`, loaded only when its command runs (COMMANDS), and loads its heavy dependencies
 * (NestJS, the agent, Chromium) with `import()` only when it runs, so `arbiter simulate` never
 * loads NestJS.
 * A command reports failure by setting `process.exitCode`, or by throwing an Error whose message
 * says what went wrong (main prints it as one line).
 */
import { Command, CommanderError } from 'commander';
import { describe } from './ops/errors';

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

/**
 * The errors that are a bug in the tool rather than a failure it explains (a wrong flag, a server
 * that does not answer, a database in use): JavaScript's own errors, and what is no Error at all.
 */
function isBug(err: unknown): boolean {
  return !(err instanceof Error) || [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError].some((e) => err instanceof e);
}

/**
 * Runs the tool; resolves to the process exit code (2 for a usage error). A command that fails
 * with an explained error prints it as one line, `arbiter: <what went wrong>`, with the exit code
 * of ops/errors.ts (ARBITER_DEBUG=1 prints its stack too); a bug is thrown, its stack printed.
 */
export async function main(argv: string[]): Promise<number | undefined> {
  try {
    await (await buildProgram(argv)).parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (isBug(err) || process.env.ARBITER_DEBUG === '1') throw err;
    const { line, exitCode } = describe(err as Error);
    console.error(line);
    return exitCode;
  }
  return undefined;
}
