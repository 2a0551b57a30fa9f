/**
 * Answers to offers checked against the outstanding offers, in memory: which offers an accept
 * takes (all outstanding, the caller's, from one agent), its tasks with the role whose offered
 * resources each uses, and what is left. Changes nothing.
 */
import { Resources } from '@arbiter/allocator';
import { type Accept, type Decline, type ExecutorSpec, OsUser, PROTOCOL_ERRORS, type TaskSpec } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import { AccessLog } from '../audit/access-log';
import { Executors, type NewExecutor, sameExecutor } from '../executors/executors.handler';
import type { ExecutorRuntime } from '../master/executor-registry';
import { ClusterState, type FrameworkRuntime } from '../master/cluster-state';
import { Kernel } from '../kernel/kernel';
import { ProtocolError } from '../kernel/protocol-error';
import type { OutstandingOffer } from '../master/offer-book';
import { LaunchHooks } from './launch-hooks';
import { OffersRepository } from './offers.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Default refuse_seconds of an accept's unused resources and of a decline (as Mesos). */
export const DEFAULT_REFUSE_SECONDS = 5;

/** An accept checked against its offers, not yet written. */
export interface PlannedAccept {
  fw: FrameworkRuntime;
  offers: OutstandingOffer[];
  agentId: string;
  /** What is left of the offers per role once the tasks have their share. */
  pool: Map<string, Resources>;
  tasks: Array<{ spec: TaskSpec; role: string }>;
  /** Filter for the unused (or declined) resources. */
  refuseSeconds: number;
  /** A decline: its offers return to the allocator whole. */
  declined?: boolean;
  /** Executors its tasks start (their resources taken from the offers with their first task's). */
  executors: ExecutorRuntime[];
  /** Task groups (LAUNCH_GROUP): their tasks go to the agent together, under their executor. */
  groups: Array<{ executor: ExecutorSpec; taskIds: string[] }>;
}

/** The tasks of an accept's operations, each with the executor it runs under and its group (LAUNCH_GROUP), if any. */
function launchesOf(msg: Accept): Array<{ spec: TaskSpec; group?: number }> {
  const out: Array<{ spec: TaskSpec; group?: number }> = [];
  for (const [i, op] of msg.operations.entries()) {
    if (op.type === 'LAUNCH') {
      for (const spec of op.tasks) {
        if (spec.container?.linux?.sharePidNamespace || spec.executor?.container?.linux?.sharePidNamespace)
          throw new ProtocolError(
            PROTOCOL_ERRORS.UNSUPPORTED,
            `task '${spec.taskId}': sharing a PID namespace (share_pid_namespace) is for the tasks of a task group, with their executor's`,
            { taskId: spec.taskId },
          );
        if (spec.executor?.type === 'DEFAULT')
          throw new ProtocolError(
            PROTOCOL_ERRORS.INVALID_MESSAGE,
            `task '${spec.taskId}': the DEFAULT executor runs task groups; launch it with LAUNCH_GROUP`,
            { taskId: spec.taskId },
          );
        out.push({ spec });
      }
    } else if (op.type === 'LAUNCH_GROUP') {
      if (op.executor.type !== 'DEFAULT')
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `operation ${i}: a task group runs under the DEFAULT executor`);
      if (op.executor.container?.linux?.sharePidNamespace)
        throw new ProtocolError(
          PROTOCOL_ERRORS.UNSUPPORTED,
          `operation ${i}: the default executor shares no PID namespace (its tasks may)`,
        );
      for (const spec of op.tasks) {
        if (spec.executor && !sameExecutor(spec.executor, op.executor))
          throw new ProtocolError(
            PROTOCOL_ERRORS.INVALID_MESSAGE,
            `task '${spec.taskId}' of a task group names another executor than its group's`,
            {
              taskId: spec.taskId,
            },
          );
        out.push({ spec: { ...spec, executor: op.executor }, group: i });
      }
    }
  }
  return out;
}

@Injectable()
export class AnswerPlans {
  constructor(
    private readonly kernel: Kernel,
    private readonly state: ClusterState,
    private readonly offers: OffersRepository,
    private readonly acls: AclsService,
    private readonly access: AccessLog,
    private readonly executors: Executors,
    private readonly hooks: LaunchHooks,
  ) {}

  /** Looks up offers for an accept: all outstanding, the caller's, on one agent. */
  private async takeOffers(fw: FrameworkRuntime, offerIds: string[]): Promise<OutstandingOffer[]> {
    const found: OutstandingOffer[] = [];
    for (const id of new Set(offerIds)) {
      const o = this.state.offers.get(id);
      if (!o) {
        // Offer ids are UUIDs: another id was never issued (and is not looked up).
        if (!UUID.test(id)) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_OFFER, `no offer with id ${id}`, { offerId: id });
        // After the writes in flight, so that an offer just answered shows how.
        await this.kernel.settled();
        const row = await this.offers.find(id);
        if (!row) throw new ProtocolError(PROTOCOL_ERRORS.UNKNOWN_OFFER, `no offer with id ${id}`, { offerId: id });
        if (row.frameworkId !== fw.id)
          throw new ProtocolError(PROTOCOL_ERRORS.OFFER_NOT_YOURS, `offer ${id} was made to another framework`, { offerId: id });
        throw new ProtocolError(PROTOCOL_ERRORS.OFFER_STALE, `offer ${id} is no longer valid (${row.state.toLowerCase()})`, {
          offerId: id,
          state: row.state,
        });
      }
      if (o.frameworkId !== fw.id)
        throw new ProtocolError(PROTOCOL_ERRORS.OFFER_NOT_YOURS, `offer ${id} was made to another framework`, { offerId: id });
      found.push(o);
    }
    if (new Set(found.map((o) => o.agentId)).size > 1)
      throw new ProtocolError(PROTOCOL_ERRORS.OFFERS_FROM_SEVERAL_AGENTS, 'offers accepted together must come from one agent');
    return found;
  }

  /**
   * What an accept asks for, checked against its offers: the offers (all outstanding, the
   * caller's, from one agent), the tasks with the role whose offered resources they use, and
   * what is left of the offers per role. Changes nothing.
   */
  async accept(fw: FrameworkRuntime, msg: Accept): Promise<PlannedAccept> {
    const offers = await this.takeOffers(fw, msg.offerIds);
    // Executors are started as the tasks are checked (a later task, or accept, finds them running);
    // an accept refused on the way forgets the ones it started.
    const started: ExecutorRuntime[] = [];
    try {
      return await this.acceptOn(fw, msg, offers, started);
    } catch (err) {
      this.executors.forget(started);
      throw err;
    }
  }

  private async acceptOn(
    fw: FrameworkRuntime,
    msg: Accept,
    offers: OutstandingOffer[],
    started: ExecutorRuntime[],
  ): Promise<PlannedAccept> {
    const agentId = offers[0].agentId;
    // What is left of the offered resources, per role.
    const pool = new Map<string, Resources>();
    for (const o of offers) pool.set(o.role, (pool.get(o.role) ?? Resources.empty()).plus(o.resources));
    const reservationOps = msg.operations.filter((op) => op.type !== 'LAUNCH' && op.type !== 'LAUNCH_GROUP');
    const launches = launchesOf(msg);
    const groups = new Map<number, { executor: ExecutorSpec; taskIds: string[] }>();
    if (reservationOps.length && launches.length) {
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        'RESERVE and UNRESERVE cannot be combined with LAUNCH in one accept; launch on the reserved resources from the next offer',
      );
    }
    const tasks: PlannedAccept['tasks'] = [];
    const ids = new Set<string>();
    for (const launch of launches) {
      const { group } = launch;
      let { spec } = launch;
      if (ids.has(spec.taskId))
        throw new ProtocolError(PROTOCOL_ERRORS.DUPLICATE_TASK, `task id '${spec.taskId}' appears twice in this accept`);
      ids.add(spec.taskId);
      this.checkImage(agentId, spec);
      // The task's user, else its framework's (Mesos's CommandInfo.user, else FrameworkInfo.user).
      const user = spec.user ?? (fw.user || undefined);
      if (user !== undefined && !OsUser.safeParse(user).success)
        throw new ProtocolError(
          PROTOCOL_ERRORS.INVALID_MESSAGE,
          `the framework's user '${user}' is not an operating-system user name; task '${spec.taskId}' must name its own user`,
          { taskId: spec.taskId },
        );
      if (user !== undefined && fw.actor && !this.acls.allows(fw.actor, 'run_tasks', user)) {
        await this.access.denied(fw.actor, {
          what: 'launch',
          reason: `ACL run_tasks refuses user '${user}'`,
          targetType: 'task',
          targetId: spec.taskId,
        });
        throw new ProtocolError(
          PROTOCOL_ERRORS.FORBIDDEN,
          `principal '${fw.actor.name}' may not run tasks as user '${user}' (ACL run_tasks); task '${spec.taskId}'`,
          { taskId: spec.taskId, user },
        );
      }
      // The first task of an executor not running yet takes the executor's resources too.
      const startsExecutor = spec.executor && !this.executors.running(agentId, fw.id, spec.executor, spec.taskId);
      const wanted =
        startsExecutor && spec.executor
          ? Resources.of(spec.resources).plus(Resources.of(spec.executor.resources))
          : Resources.of(spec.resources);
      let role: string | undefined;
      for (const [r, left] of pool) {
        if (!left.contains(wanted)) continue;
        role = r;
        // Shared resources (shared volumes) stay for the accept's other tasks, as in Mesos.
        pool.set(r, left.minus(wanted.nonShared()));
        break;
      }
      if (role === undefined) {
        throw new ProtocolError(
          PROTOCOL_ERRORS.INSUFFICIENT_OFFERED_RESOURCES,
          `task '${spec.taskId}' needs ${wanted.toString()}, more than is left of the offers (${[...pool.values()].map((r) => r.toString()).join(' + ') || 'nothing'})`,
          { taskId: spec.taskId },
        );
      }
      // The modules' task-launch hooks, before anything starts: they may decorate or refuse it.
      spec = await this.hooks.apply(fw, agentId, role, spec);
      if (startsExecutor && spec.executor) {
        const executor: NewExecutor = { agentId, frameworkId: fw.id, spec: spec.executor, role };
        started.push(...this.executors.start([executor]));
      }
      if (group !== undefined && spec.executor) {
        const g = groups.get(group) ?? { executor: spec.executor, taskIds: [] };
        g.taskIds.push(spec.taskId);
        groups.set(group, g);
      }
      tasks.push({ spec: user !== undefined && spec.user === undefined ? { ...spec, user } : spec, role });
    }
    return {
      fw,
      offers,
      agentId,
      pool,
      tasks,
      refuseSeconds: msg.refuseSeconds ?? DEFAULT_REFUSE_SECONDS,
      executors: started,
      groups: [...groups.values()],
    };
  }

  /**
   * A task (or its executor) with a container image, on an agent that cannot run images (no
   * runtime, or an agent older than containers), is refused here rather than failing on the
   * agent: Mesos's master refuses a task its agent lacks the capability for as invalid
   * (TASK_ERROR, REASON_TASK_INVALID, on the Mesos API).
   */
  private checkImage(agentId: string, spec: TaskSpec): void {
    const image = spec.container?.image ?? spec.executor?.container?.image;
    if (image === undefined) return;
    const agent = this.state.agents.get(agentId);
    const why = agent?.imagesRefusal;
    if (why === undefined) return;
    throw new ProtocolError(
      PROTOCOL_ERRORS.AGENT_CANNOT_RUN_IMAGES,
      `task '${spec.taskId}' runs image '${image.name}', which agent ${agentId} (${agent?.hostname ?? 'unknown'}) cannot run: ${why}`,
      { taskId: spec.taskId, agentId, image: image.name },
    );
  }

  /** Declined offers: the caller's that are still outstanding (declining one that is gone is harmless, as in Mesos). */
  decline(fw: FrameworkRuntime, msg: Decline): PlannedAccept {
    const offers = [...new Set(msg.offerIds)].flatMap((id) => {
      const o = this.state.offers.get(id);
      return o?.frameworkId === fw.id ? [o] : [];
    });
    return {
      fw,
      offers,
      agentId: '',
      pool: new Map(),
      tasks: [],
      refuseSeconds: msg.refuseSeconds ?? DEFAULT_REFUSE_SECONDS,
      declined: true,
      executors: [],
      groups: [],
    };
  }
}
