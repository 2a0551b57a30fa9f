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
import { OperatorStateRepository } from './operator-state.repository';
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
    const rows = this.rows.tasks(MAX_TASKS);
    const [get_tasks, get_executors, get_frameworks, get_agents] = await Promise.all([
      this.taskList(actor, rows),
      this.executorList(actor),
      this.frameworkList(actor),
      this.agentList(actor, rows),
    ]);
    return { get_tasks, get_executors, get_frameworks, get_agents };
  }

  /**
   * The agents the caller's view_agents ACL shows, each with what its live tasks use
   * (`allocated_resources`). From plain rows (operator-state.repository.ts): the REST list's
   * per-agent views take seconds at 10,000 agents.
   */
  async agentList(actor: Actor, taskRows = this.rows.tasks(MAX_TASKS)): Promise<Obj> {
    const [rows, tasks] = await Promise.all([this.rows.agents(MAX_ITEMS), taskRows]);
    const used = new Map<string, Record<string, number>>();
    for (const t of tasks) {
      if (isTerminalTaskState(t.state)) continue;
      const sum = used.get(t.agentId) ?? {};
      for (const r of t.resources) if (r.value !== undefined) sum[r.name] = (sum[r.name] ?? 0) + r.value;
      used.set(t.agentId, sum);
    }
    const see = this.filter(actor, 'view_agents');
    return {
      agents: rows.filter((a) => see(a.hostname)).map((a) => operatorAgent({ ...a, usage: { used: used.get(a.id) ?? {}, offered: {} } })),
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
  private async taskList(actor: Actor, taskRows = this.rows.tasks(MAX_TASKS)): Promise<Obj> {
    const rows = await taskRows;
    const see = this.filter(actor, 'view_tasks');
    const tasks: Obj[] = [];
    const unreachable: Obj[] = [];
    const completed: Obj[] = [];
    for (const t of rows) {
      if (!see(t.user)) continue;
      const state = t.state;
      const list = state === TaskState.UNREACHABLE ? unreachable : isTerminalTaskState(state) ? completed : tasks;
      list.push(operatorTask(t));
    }
    return { tasks, unreachable_tasks: unreachable, completed_tasks: completed };
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
