/**
 * The operator commands: the cluster read and changed through the REST API (/api/v1/...), the
 * same contracts as the dashboard. docs/cli.md shows each one. Registered after `agent` and
 * `task`, whose commands gain subcommands here (`agent drain`, `task kill`).
 */
import type { Command } from 'commander';
import { registerAgentOperations, registerAgents } from './agents';
import { registerAudit } from './audit';
import { registerCompletion } from './completion';
import { registerFrameworks } from './frameworks';
import { registerMachines } from './machines';
import { registerRoles } from './roles';
import { registerTaskKill, registerTasks } from './tasks';

function existing(program: Command, name: string): Command {
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd) throw new Error(`the '${name}' command must be registered before the operator commands`);
  return cmd;
}

export function register(program: Command): void {
  registerAgents(program);
  registerAgentOperations(existing(program, 'agent'));
  registerFrameworks(program);
  registerTasks(program);
  registerTaskKill(existing(program, 'task'));
  registerRoles(program);
  registerMachines(program);
  registerAudit(program);
  registerCompletion(program);
}
