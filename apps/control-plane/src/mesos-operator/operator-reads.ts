/**
 * The operator API's read calls (GET_*), answered from the same services as the REST API and
 * Mesos's /master/* endpoints, so the caller's view ACLs filter what it sees: agents by
 * view_agents, frameworks by view_frameworks, tasks and executors by view_tasks, roles, weights
 * and quota by view_roles; metrics and flags by get_endpoints.
 */
import { Injectable } from '@nestjs/common';
import { isTerminalTaskState } from '@arbiter/contracts';
import type { Request } from 'express';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { ExecutorsService } from '../executors/executors.service';
import { FrameworkState } from '../frameworks/framework.entity';
import { FrameworksService } from '../frameworks/frameworks.service';
import { Leadership } from '../leadership/leadership.service';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { buildInfo } from '../mesos/mesos-build';
import { masterInfo } from '../mesos/mesos-http';
import { MesosMaster } from '../mesos/mesos-master.service';
import { RolesService } from '../roles/roles.service';
import { TaskState } from '../tasks/task.entity';
import type { ReadCall } from './operator-calls';
import { type Fragment, FragmentList, type Held, RowCache } from './operator-fragments';
import { type AgentRow, OperatorStateRepository, type TaskRow, type TaskVersion } from './operator-state.repository';
import { operatorLogLevel } from './operator-logging';
import {
  operatorAgent,
  operatorExecutor,
  operatorFramework,
  operatorRole,
  operatorTask,
  scalarMap,
  scalarResources,
  timeInfo,
} from './operator-views';

type Obj = Record<string, unknown>;

/** Largest number of agents, frameworks and executors in one answer (as /master/state). */
const MAX_ITEMS = 10_000;
/** Largest number of tasks in one answer: live and recently ended, newest first. */
const MAX_TASKS = 100_000;

const machine = (m: { hostname?: string; ip?: string }) => ({
  ...(m.hostname ? { hostname: m.hostname } : {}),
  ...(m.ip ? { ip: m.ip } : {}),
});

@Injectable()
export class OperatorReads {
  /** When this process started (GET_MASTER's start_time). */
  private readonly started = Date.now() / 1000 - process.uptime();
  /** Agents' and tasks' rows and messages, kept while unchanged (operator-fragments.ts). */
  private readonly agentRows = new RowCache<AgentRow>();
  private readonly taskRows = new RowCache<TaskRow>();

  constructor(
    private readonly rows: OperatorStateRepository,
    private readonly acls: AclsService,
    private readonly frameworks: FrameworksService,
    private readonly executors: ExecutorsService,
    private readonly roles: RolesService,
    private readonly maintenance: MaintenanceService,
    private readonly master: MesosMaster,
    private readonly leadership: Leadership,
  ) {}

  /** The answer to a read call: the Response's type and its field, as Mesos names them. */
  async answer(type: ReadCall, actor: Actor, req: Request): Promise<Obj> {
    const field = type.toLowerCase();
    return { type, [field]: await this.read(type, actor, req) };
  }

  private async read(type: ReadCall, actor: Actor, req: Request): Promise<Obj> {
    switch (type) {
      case 'GET_HEALTH':
        return { healthy: await this.master.healthy() };
      case 'GET_FLAGS':
        return { flags: Object.entries(await this.master.flags(actor)).map(([name, value]) => ({ name, value })) };
      case 'GET_VERSION': {
        const { arbiter_version: _own, ...version } = buildInfo();
        return { version_info: version };
      }
      case 'GET_METRICS':
        return { metrics: Object.entries(await this.master.snapshot(actor)).map(([name, value]) => ({ name, value })) };
      case 'GET_LOGGING_LEVEL':
        return { level: operatorLogLevel() };
      case 'GET_STATE':
        return this.state(actor);
      case 'GET_AGENTS':
        return this.agentList(actor);
      case 'GET_FRAMEWORKS':
        return this.frameworkList(actor);
      case 'GET_EXECUTORS':
        return this.executorList(actor);
      case 'GET_TASKS':
        return this.taskList(actor);
      case 'GET_OPERATIONS':
        // Arbiter applies reservations when they are asked for: no operation is ever pending.
        return { operations: [] };
      case 'GET_ROLES':
        return { roles: (await this.roles.roles(actor)).map(operatorRole) };
      case 'GET_WEIGHTS':
        return { weight_infos: (await this.roles.weights(actor)).map((w) => ({ role: w.role, weight: w.weight })) };
      case 'GET_MASTER':
        return {
          master_info: masterInfo(this.leadership.url, req),
          start_time: this.started,
          ...(this.leadership.isLeader ? { elected_time: this.started } : {}),
        };
      case 'GET_MAINTENANCE_STATUS':
        return { status: await this.maintenanceStatus() };
      case 'GET_MAINTENANCE_SCHEDULE':
        return { schedule: await this.schedule() };
      case 'GET_QUOTA': {
        const quotas = await this.roles.quotas(actor);
        return {
          status: {
            // `infos`: the guarantees as Mesos still reports them to clients that predate `configs`.
            infos: quotas.map((q) => ({ role: q.role, guarantee: scalarResources(q.guarantees) })),
            configs: quotas.map((q) => ({ role: q.role, guarantees: scalarMap(q.guarantees), limits: scalarMap(q.limits) })),
          },
        };
      }
    }
  }

  /** GET_STATE: tasks, executors, frameworks and agents at once (SUBSCRIBED carries it too). */
  async state(actor: Actor): Promise<Obj> {
    const tasks = this.tasksNow();
    const [get_tasks, get_executors, get_frameworks, get_agents] = await Promise.all([
      this.taskList(actor, tasks),
      this.executorList(actor),
      this.frameworkList(actor),
      this.agentList(actor, tasks),
    ]);
    return { get_tasks, get_executors, get_frameworks, get_agents };
  }

  /** Every task now (live and kept ended ones), newest first: the kept rows, and those new or changed read. */
  private async tasksNow(): Promise<Array<Held<TaskRow, TaskVersion>>> {
    return this.taskRows.current(await this.rows.taskVersions(MAX_TASKS), (keys) => this.rows.tasks(keys));
  }

  /**
   * The agents the caller's view_agents ACL shows, each with what its live tasks use
   * (`allocated_resources`). From plain rows (operator-state.repository.ts): the REST list's
   * per-agent views take seconds at 10,000 agents.
   */
  async agentList(actor: Actor, taskRows = this.tasksNow()): Promise<Obj> {
    const agentRows = this.rows.agentVersions(MAX_ITEMS).then((v) => this.agentRows.current(v, (keys) => this.rows.agents(keys)));
    const [agents, tasks] = await Promise.all([agentRows, taskRows]);
    const used = new Map<string, Record<string, number>>();
    for (const { row: t } of tasks) {
      if (isTerminalTaskState(t.state)) continue;
      const sum = used.get(t.agentId) ?? {};
      for (const r of t.resources) if (r.value !== undefined) sum[r.name] = (sum[r.name] ?? 0) + r.value;
      used.set(t.agentId, sum);
    }
    const see = this.filter(actor, 'view_agents');
    const shown = agents.filter((a) => see(a.row.hostname));
    return {
      agents: new FragmentList(
        shown.map((a) => {
          const usage = { used: used.get(a.row.id) ?? {}, offered: {} };
          return a.fragment((row) => operatorAgent({ ...row, usage }), JSON.stringify(usage.used));
        }),
      ),
      recovered_agents: [],
    };
  }

  /** A test of the action's object for the caller, each value decided once; everything for a caller the ACL does not limit. */
  private filter(actor: Actor, action: 'view_agents' | 'view_tasks'): (object: string) => boolean {
    const scope = this.acls.scope(actor, action);
    if (!actor.anonymous && 'except' in scope && !scope.except.length) return () => true;
    const decided = new Map<string, boolean>();
    return (object) => {
      let seen = decided.get(object);
      if (seen === undefined) decided.set(object, (seen = this.acls.allows(actor, action, object)));
      return seen;
    };
  }

  async frameworkList(actor: Actor): Promise<Obj> {
    const page = await this.frameworks.list({}, MAX_ITEMS, 0, actor);
    return {
      frameworks: page.items.filter((f) => f.state !== FrameworkState.COMPLETED).map(operatorFramework),
      completed_frameworks: page.items.filter((f) => f.state === FrameworkState.COMPLETED).map(operatorFramework),
    };
  }

  private async executorList(actor: Actor): Promise<Obj> {
    return { executors: (await this.executors.running(actor, MAX_ITEMS)).map(operatorExecutor) };
  }

  /** The tasks the caller's view_tasks ACL shows (by their framework's user), from plain rows. */
  private async taskList(actor: Actor, taskRows = this.tasksNow()): Promise<Obj> {
    const held = await taskRows;
    const see = this.filter(actor, 'view_tasks');
    const tasks: Fragment[] = [];
    const unreachable: Fragment[] = [];
    const completed: Fragment[] = [];
    for (const t of held) {
      if (!see(t.row.user)) continue;
      const state = t.row.state;
      const list = state === TaskState.UNREACHABLE ? unreachable : isTerminalTaskState(state) ? completed : tasks;
      list.push(t.fragment(operatorTask));
    }
    return {
      tasks: new FragmentList(tasks),
      unreachable_tasks: new FragmentList(unreachable),
      completed_tasks: new FragmentList(completed),
    };
  }

  private async schedule(): Promise<Obj> {
    const schedule = await this.maintenance.schedule();
    return {
      windows: schedule.windows.map((w) => ({
        machine_ids: w.machines.map(machine),
        unavailability: {
          start: timeInfo(w.unavailability.start),
          ...(w.unavailability.durationSeconds != null ? { duration: { nanoseconds: w.unavailability.durationSeconds * 1e9 } } : {}),
        },
      })),
    };
  }

  private async maintenanceStatus(): Promise<Obj> {
    const status = await this.maintenance.status();
    return {
      draining_machines: status.drainingMachines.map((d) => ({
        id: machine(d.machine),
        statuses: d.statuses.map((s) => ({
          status: s.status,
          framework_id: { value: s.frameworkId },
          timestamp: timeInfo(s.updatedAt),
        })),
      })),
      down_machines: status.downMachines.map(machine),
    };
  }
}
