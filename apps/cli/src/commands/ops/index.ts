/**
 * The operator commands: the cluster read and changed through the REST API (/api/v1/...), the
 * same contracts as the dashboard. docs/cli.md shows each one. `agent drain` and `task kill`
 * are registered by `agent` and `task` (commands/agent.ts, commands/task.ts).
 */
import type { Command } from 'commander';
import { registerAgents } from './agents';
import { registerAudit } from './audit';
import { registerCompletion } from './completion';
import { registerFrameworks } from './frameworks';
import { registerMachines } from './machines';
import { registerRoles } from './roles';
import { registerTasks } from './tasks';

export function register(program: Command): void {
  registerAgents(program);
  registerFrameworks(program);
  registerTasks(program);
  registerRoles(program);
  registerMachines(program);
  registerAudit(program);
  registerCompletion(program);
}
