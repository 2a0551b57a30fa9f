/**
 * Agents from the operator's terminal:
 *   arbiter agents list [--status S] [--hostname H] [--drain-state D] [--limit N] [--watch]
 *   arbiter agents show AGENT_ID [--watch]
 *   arbiter agent drain AGENT_ID [--grace SECONDS] [--mark-gone]
 *   arbiter agent deactivate|reactivate AGENT_ID
 *   arbiter agent gone AGENT_ID [--grace SECONDS]
 * `arbiter agent` itself (with its flags and no subcommand) still runs an agent daemon; the
 * operations are its subcommands. `gone` is a drain that marks the agent GONE once its tasks have
 * ended (immediately with none; the tasks are killed with --grace, default 0 s).
 */
import type { Schema } from '@arbiter/contracts';
import type { Command } from 'commander';
import { action, ago, amounts, connect, connectionOptions, enc, intFlag, type OutputFlags, query, watchOptions } from '../../ops/output';
import { AGENT_EVENTS, type FollowFlags, followOption, view } from '../../ops/follow';
import { renderFields, renderTable } from '../../ops/table';

type Agent = Schema<'AgentViewDto'>;
type AgentPage = Schema<'AgentPageDto'>;

const used = (a: Agent, name: string) => {
  const u = (a.usage.used as Record<string, number>)[name] ?? 0;
  const t = (a.usage.total as Record<string, number>)[name] ?? 0;
  return `${Math.round(u * 100) / 100}/${Math.round(t * 100) / 100}`;
};

const state = (a: Agent) => (a.status !== 'REACHABLE' ? a.status : a.drainState ? a.drainState : a.activated ? 'ACTIVE' : 'DEACTIVATED');

export function agentsTable(agents: readonly Agent[]): string {
  return renderTable<Agent>(
    [
      { header: 'id', value: (a) => a.id },
      { header: 'hostname', value: (a) => a.hostname },
      { header: 'state', value: state },
      { header: 'tasks', value: (a) => a.usage.activeTasks },
      { header: 'cpus', value: (a) => used(a, 'cpus'), align: 'right' },
      { header: 'mem', value: (a) => used(a, 'mem'), align: 'right' },
      { header: 'maintenance', value: (a) => a.maintenance?.mode },
      { header: 'seen', value: (a) => ago(a.lastSeenAt) },
    ],
    agents,
  );
}

export function agentFields(a: Agent): string {
  return renderFields([
    ['ID', a.id],
    ['Hostname', a.hostname],
    ['Address', a.address],
    ['Status', a.status],
    ['Activated', a.activated],
    [
      'Drain',
      a.drainState
        ? `${a.drainState} since ${a.drainStartedAt} (grace ${a.drainConfig?.maxGracePeriodSeconds ?? 'default'} s${a.drainConfig?.markGone ? ', then GONE' : ''})`
        : null,
    ],
    ['Maintenance', a.maintenance ? `${a.maintenance.mode} from ${a.maintenance.start}` : null],
    ['Whitelisted', a.whitelisted],
    ['Resources', a.resourcesText],
    ['Used', amounts(a.usage.used)],
    ['Offered', amounts(a.usage.offered)],
    ['Reserved', amounts(a.usage.reserved)],
    ['Active tasks', a.usage.activeTasks],
    [
      'Revocable',
      Object.keys(a.usage.revocable.total).length
        ? `${amounts(a.usage.revocable.total)} (used ${amounts(a.usage.revocable.used) || 'none'}, offered ${amounts(a.usage.revocable.offered) || 'none'})`
        : null,
    ],
    [
      'Attributes',
      Object.entries(a.attributes)
        .map(([k, v]) => `${k}:${String(v)}`)
        .join(';'),
    ],
    ['Health', !a.health ? null : a.health.ok ? 'ok' : a.health.problems.map((p) => `${p.code}: ${p.message}`).join('; ')],
    ['Version', a.version],
    ['Principal', a.principal],
    ['First seen', a.firstSeenAt],
    ['Last seen', `${a.lastSeenAt} (${ago(a.lastSeenAt)} ago)`],
  ]);
}

interface ListFlags extends FollowFlags {
  status?: string;
  hostname?: string;
  drainState?: string;
  limit?: string;
}

interface DrainFlags extends OutputFlags {
  grace?: string;
  markGone?: boolean;
}

const agentPath = (id: string) => `/api/v1/agents/${enc(id)}`;

/** `arbiter agents list|show`. */
export function registerAgents(program: Command): void {
  const agents = program.command('agents').description('agents of the cluster: list them, or show one');
  watchOptions(
    followOption(agents.command('list'))
      .description('the agents, with their state, tasks and use of cpus and memory')
      .option('--status <status>', 'REACHABLE, UNREACHABLE or GONE')
      .option('--hostname <text>', 'hostnames containing this text')
      .option('--drain-state <state>', 'DRAINING or DRAINED')
      .option('--limit <n>', 'at most this many (default 100, at most 500)'),
  ).action(
    action(async (flags: ListFlags) => {
      const client = await connect(flags);
      const q = query({
        status: flags.status?.toUpperCase(),
        hostname: flags.hostname,
        drainState: flags.drainState?.toUpperCase(),
        limit: intFlag(flags.limit, '--limit', 1, 500) ?? 100,
        sort: 'hostname',
      });
      await view(
        client,
        AGENT_EVENTS,
        flags,
        () => client.call<AgentPage>('GET', `/api/v1/agents${q}`),
        (page) =>
          `${agentsTable(page.items)}${page.total > page.items.length ? `\n(${page.items.length} of ${page.total}: --limit shows more)` : ''}`,
      );
    }),
  );
  watchOptions(followOption(agents.command('show')).description('one agent in full').argument('<agent-id>')).action(
    action(async (id: string, flags: FollowFlags) => {
      const client = await connect(flags);
      await view(client, AGENT_EVENTS, flags, () => client.call<Agent>('GET', agentPath(id)), agentFields);
    }),
  );
}

/** `arbiter agent drain|deactivate|reactivate|gone ID`, beside `arbiter agent`'s own action (running an agent). */
export function registerAgentOperations(agent: Command): void {
  // Options after the subcommand's name are the subcommand's (`arbiter agent drain ID --master URL`):
  // the program and `agent` parse positionally (main.ts).
  agent.enablePositionalOptions();
  const operate = (
    name: string,
    description: string,
    body: (flags: DrainFlags) => object | undefined,
    path: string,
    say: (a: Agent) => string,
  ) =>
    connectionOptions(agent.command(name).description(description).argument('<agent-id>'))
      .option('--json', 'print the agent as the API answers it')
      .action(
        action(async (id: string, flags: DrainFlags) => {
          const client = await connect(flags);
          const a = await client.call<Agent>('POST', `${agentPath(id)}/${path}`, body(flags));
          if (flags.json) console.log(JSON.stringify(a, null, 2));
          else console.log(say(a));
        }),
      );
  const grace = (flags: DrainFlags, fallback?: number) => {
    const s = intFlag(flags.grace, '--grace', 0, 31_536_000) ?? fallback;
    return s === undefined ? {} : { maxGracePeriodSeconds: s };
  };
  operate(
    'drain',
    'deactivate the agent and kill its tasks (after a grace period); DRAINED once they have ended',
    (flags) => ({ ...grace(flags), markGone: Boolean(flags.markGone) }),
    'drain',
    (a) => `agent ${a.id} (${a.hostname}) is ${a.drainState}${a.status === 'GONE' ? ' and GONE' : ''}: ${a.usage.activeTasks} task(s) left`,
  )
    .option('--grace <seconds>', "the longest grace period a task gets before SIGKILL (default: each task's own)")
    .option('--mark-gone', 'mark the agent GONE once drained: it can never come back under this id');
  operate(
    'deactivate',
    'stop offering the agent (its tasks keep running)',
    () => undefined,
    'deactivate',
    (a) => `agent ${a.id} (${a.hostname}) is deactivated: no offers for it; its ${a.usage.activeTasks} task(s) keep running`,
  );
  operate(
    'reactivate',
    'offer the agent again (ends a drain that is over, or a deactivation)',
    () => undefined,
    'reactivate',
    (a) => `agent ${a.id} (${a.hostname}) is active again`,
  );
  operate(
    'gone',
    'mark the agent GONE: its tasks are killed (--grace, default 0 s) and it never comes back under this id',
    (flags) => ({ ...grace(flags, 0), markGone: true }),
    'drain',
    (a) =>
      a.status === 'GONE'
        ? `agent ${a.id} (${a.hostname}) is GONE`
        : `agent ${a.id} (${a.hostname}) is draining: GONE once its ${a.usage.activeTasks} task(s) have ended`,
  ).option('--grace <seconds>', 'the grace period its tasks get before SIGKILL (default 0)');
}
