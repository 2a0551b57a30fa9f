import type { Command } from 'commander';
import { buildProgram, COMMANDS } from './main';

/** A command and its subcommands as `--help` shows them, depth first. */
function helpTree(cmd: Command, path = ''): string[] {
  const here = `${path} ${cmd.name()}`.trim();
  return [`${here}\n${cmd.helpInformation()}`, ...cmd.commands.flatMap((c) => helpTree(c, here))];
}

const names = (program: Command) => program.commands.map((c) => c.name()).filter((n) => n !== 'help');

describe('arbiter: one module per command, loaded when named', () => {
  let whole: Command;
  beforeAll(async () => {
    whole = await buildProgram();
  });

  it('lists every command of the whole program once, in the order of --help', () => {
    expect(names(whole)).toEqual(COMMANDS.flatMap((c) => c.names));
  });

  it.each(COMMANDS.flatMap((c) => c.names))('builds `%s` alone as the whole program has it', async (name) => {
    const alone = await buildProgram([name, '--help']);
    const owner = COMMANDS.find((c) => c.names.includes(name));
    if (name === 'completion') {
      // Completion writes every command into its script: it gets them all.
      expect(names(alone)).toEqual(names(whole));
    } else {
      expect(names(alone)).toEqual(owner?.names);
    }
    const mine = (p: Command) => p.commands.filter((c) => c.name() === name).flatMap((c) => helpTree(c));
    expect(mine(alone)).toEqual(mine(whole));
    expect(mine(alone).length).toBeGreaterThan(0);
  });

  it('loads every command for help and for a name it does not know (so that it can suggest one)', async () => {
    for (const argv of [[], ['--help'], ['help', 'agents'], ['agnets']]) expect(names(await buildProgram(argv))).toEqual(names(whole));
  });
});
