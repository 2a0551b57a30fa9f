/**
 * Mesos's v1 scheduler API in Arbiter's terms, with no I/O: a Mesos Call becomes the message of
 * Arbiter's own framework protocol that the handlers take (libs/contracts frameworks.ts),
 * checked by the same schemas (what the handlers send a framework becomes Mesos's Event in
 * mesos-events.ts). A field Mesos defines and Arbiter cannot honour is refused by name
 * (UNSUPPORTED), never dropped. docs/mesos-compat.md is the table of all of it.
 */
import {
  type FetchUri,
  Accept,
  CAPABILITIES,
  Decline,
  Kill,
  type MesosCall,
  type MesosCommandInfo,
  type MesosFrameworkInfo,
  MESOS_TASK_UNSUPPORTED,
  type MesosOperation,
  type MesosResource,
  type MesosTaskInfo,
  type Operation,
  parseMessage,
  PROTOCOL_ERRORS,
  type ResourceEntry,
  Role,
  RolesCall,
  Subscribe,
  type TaskSpec,
} from '@arbiter/contracts';
import type { z } from 'zod';
import type { Subscription } from '../framework-lifecycle/framework-sessions.handler';
import { reservationOpOf } from './mesos-operations-codec';
import { ProtocolError } from '../kernel/protocol-error';
import { containerOf } from './mesos-container-codec';
import { diskOf, mesosDisk, volumeOf } from './mesos-volumes-codec';
import { checksOf } from './mesos-checks-codec';
import { executorOf, type TaskCodecParts } from './mesos-executor-codec';
import { discoveryOf, labelsOf } from './mesos-labels-codec';

/** Mesos's name for "no role": a framework without one, unreserved resources. */
export const MESOS_STAR = '*';

/** Capabilities Mesos defines that change nothing here; accepted (docs/mesos-compat.md says why). */
const NO_EFFECT_CAPABILITIES = new Set(['REGION_AWARE']);

/** How a framework's role names map between Mesos's and Arbiter's: `*` is the configured default role. */
export interface RoleMap {
  /** The Arbiter role that stands for Mesos's `*` (ARBITER_MESOS_DEFAULT_ROLE). */
  defaultRole: string;
}

const invalid = (message: string): never => {
  throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, message);
};
const unsupported = (what: string, why: string) => new ProtocolError(PROTOCOL_ERRORS.UNSUPPORTED, `${what} is not supported: ${why}`);

/** Parses an internal message with its contracts schema, as the socket protocol does; INVALID_MESSAGE names the Mesos call. */
function checked<S extends z.ZodType>(schema: S, value: unknown, call: string): z.infer<S> {
  const r = parseMessage(schema, value);
  if (!r.ok) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${call}: ${r.error.message}`, r.error.details);
  return r.value;
}

export function toArbiterRole(role: string, map: RoleMap): string {
  return role === MESOS_STAR ? map.defaultRole : role;
}

function rolesOf(roles: string[] | undefined, map: RoleMap, call: string): string[] | undefined {
  if (roles === undefined) return undefined;
  const out = roles.map((r) => toArbiterRole(r, map));
  for (const r of out) checked(Role, r, `${call} role '${r}'`);
  return out;
}

// ---------------------------------------------------------------- resources

/** A Mesos Resource as Arbiter's ResourceEntry. */
export function fromMesosResource(r: MesosResource, where: string): ResourceEntry {
  if (r.provider_id !== undefined) throw unsupported(`${where}: provider_id`, 'Arbiter has no resource providers');
  const entry: ResourceEntry = { name: r.name };
  switch (r.type) {
    case 'SCALAR':
      entry.value = r.scalar?.value ?? 0;
      break;
    case 'RANGES':
      entry.ranges = (r.ranges?.range ?? []).map((x) => [x.begin, x.end] as [number, number]);
      break;
    case 'SET':
      entry.set = r.set?.item ?? [];
      break;
    default:
      throw unsupported(`${where}: resource type ${r.type}`, 'resources are SCALAR, RANGES or SET');
  }
  const refined = r.reservations?.length ? r.reservations[r.reservations.length - 1].role : undefined;
  const role = refined ?? (r.role !== undefined && r.role !== MESOS_STAR ? r.role : undefined);
  if (role !== undefined && role !== MESOS_STAR) entry.reservation = role;
  if (r.revocable) entry.revocable = true;
  if (r.shared) entry.shared = true;
  if (r.disk) Object.assign(entry, diskOf(r.disk, where));
  return entry;
}

const fromMesosResources = (list: MesosResource[] | undefined, where: string) => (list ?? []).map((r) => fromMesosResource(r, where));

/** Arbiter's ResourceEntry as a Mesos Resource (reservations in both the refined and the pre-refinement form). */
export function toMesosResource(
  e: ResourceEntry,
  allocationRole?: string,
  volume?: { containerPath: string; mode: string; principal: string },
): Record<string, unknown> {
  const out: Record<string, unknown> = { name: e.name };
  if (e.ranges) Object.assign(out, { type: 'RANGES', ranges: { range: e.ranges.map(([begin, end]) => ({ begin, end })) } });
  else if (e.set) Object.assign(out, { type: 'SET', set: { item: e.set } });
  else Object.assign(out, { type: 'SCALAR', scalar: { value: e.value ?? 0 } });
  const reserved = e.reservation !== undefined && e.reservation !== MESOS_STAR;
  out.role = reserved ? e.reservation : MESOS_STAR;
  if (reserved) out.reservations = [{ type: 'DYNAMIC', role: e.reservation }];
  if (allocationRole !== undefined) out.allocation_info = { role: allocationRole };
  if (e.revocable) out.revocable = {};
  if (e.shared) out.shared = {};
  const disk = mesosDisk(e, volume);
  if (disk) out.disk = disk;
  return out;
}

// ---------------------------------------------------------------- calls

export function subscriptionOf(call: MesosCall, map: RoleMap): Subscription {
  const sub = call.subscribe;
  if (!sub) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "SUBSCRIBE: the call needs a 'subscribe' field with framework_info");
  if (call.framework_id && sub.framework_info.id && call.framework_id.value !== sub.framework_info.id.value)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, 'SUBSCRIBE: framework_id and framework_info.id differ');
  return frameworkInfoOf(call, sub, map);
}

/** UPDATE_FRAMEWORK: the whole new FrameworkInfo, whose id must be the call's framework_id (as Mesos checks). */
export function frameworkUpdateOf(call: MesosCall, map: RoleMap): Subscription & { frameworkId: string } {
  const update = call.update_framework;
  if (!update)
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      "UPDATE_FRAMEWORK: the call needs an 'update_framework' field with framework_info",
    );
  if (call.framework_id?.value !== update.framework_info.id?.value)
    throw new ProtocolError(
      PROTOCOL_ERRORS.INVALID_MESSAGE,
      "UPDATE_FRAMEWORK: 'framework_id' differs from 'update_framework.framework_info.id'",
    );
  const msg = frameworkInfoOf(call, update, map);
  return { ...msg, frameworkId: update.framework_info.id?.value ?? '' };
}

/** A FrameworkInfo (SUBSCRIBE, UPDATE_FRAMEWORK) as Arbiter's subscription. */
function frameworkInfoOf(call: MesosCall, sub: NonNullable<MesosCall['subscribe']>, map: RoleMap): Subscription {
  const info: MesosFrameworkInfo = sub.framework_info;
  const name = call.type === 'SUBSCRIBE' ? 'subscribe' : 'update_framework';
  if (info.labels?.labels?.length) throw unsupported('framework_info.labels', 'Arbiter keeps no framework labels');
  if (sub.offer_constraints !== undefined) throw unsupported(`${name}.offer_constraints`, 'Arbiter has no offer constraints');
  const capabilities: string[] = [];
  for (const { type } of info.capabilities ?? []) {
    if ((CAPABILITIES as readonly string[]).includes(type)) capabilities.push(type);
    else if (!NO_EFFECT_CAPABILITIES.has(type))
      throw unsupported(`framework capability ${type}`, `Arbiter knows ${[...CAPABILITIES, ...NO_EFFECT_CAPABILITIES].join(', ')}`);
  }
  const multiRole = capabilities.includes('MULTI_ROLE');
  if (!multiRole && info.roles?.length)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${call.type}: 'roles' needs the MULTI_ROLE capability; use 'role'`);
  if (multiRole && info.role !== undefined)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${call.type}: a MULTI_ROLE framework names its roles in 'roles', not 'role'`);
  const mesosRoles = multiRole ? (info.roles?.length ? info.roles : [MESOS_STAR]) : [info.role ?? MESOS_STAR];
  const offerFilters = info.offer_filters
    ? Object.fromEntries(
        Object.entries(info.offer_filters).map(([role, f]) => [
          toArbiterRole(role, map),
          {
            minAllocatableResources: (f.min_allocatable_resources?.quantities ?? []).map((q) =>
              Object.fromEntries(Object.entries(q.quantities ?? {}).map(([name, v]) => [name, v.value])),
            ),
          },
        ]),
      )
    : undefined;
  const msg = checked(
    Subscribe,
    {
      frameworkId: call.framework_id?.value ?? info.id?.value,
      name: info.name,
      roles: rolesOf(mesosRoles, map, call.type),
      capabilities,
      failoverTimeoutSeconds: info.failover_timeout ?? 0,
      ...(info.principal !== undefined ? { principal: info.principal } : {}),
      ...(info.user ? { user: info.user } : {}),
      ...(info.hostname !== undefined ? { hostname: info.hostname } : {}),
      // Mesos's default: no checkpointing.
      checkpoint: info.checkpoint ?? false,
      suppressedRoles: rolesOf(sub.suppressed_roles, map, call.type) ?? [],
      ...(offerFilters ? { offerFilters } : {}),
    },
    call.type,
  );
  return {
    ...msg,
    protocol: 'mesos',
    ...(info.webui_url ? { webuiUrl: info.webui_url } : {}),
  };
}

/** How a FrameworkInfo's roles read in events: MULTI_ROLE, and whether it has Mesos's `*` (the default role). */
export function roleContext(info: MesosFrameworkInfo): { multiRole: boolean; star: boolean } {
  const multiRole = (info.capabilities ?? []).some((c) => c.type === 'MULTI_ROLE');
  const star = multiRole ? !info.roles?.length || info.roles.includes(MESOS_STAR) : (info.role ?? MESOS_STAR) === MESOS_STAR;
  return { multiRole, star };
}

function commandOf(c: MesosCommandInfo | undefined, where: string): Pick<TaskSpec, 'command' | 'env' | 'user' | 'uris'> {
  if (!c) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: a task needs a command, or an executor to run it`);
  const env: Record<string, string> = {};
  for (const v of c.environment?.variables ?? []) {
    if (v.type === 'SECRET' || v.secret !== undefined)
      throw unsupported(`${where}: secret environment variable ${v.name}`, 'Arbiter has no secrets store');
    env[v.name] = v.value ?? '';
  }
  if (c.value === undefined) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: command.value is required`);
  const command: TaskSpec['command'] =
    c.shell === false
      ? // Mesos passes `arguments` as the whole argv, the program's name first.
        { value: c.value, ...(c.arguments && c.arguments.length > 1 ? { arguments: c.arguments.slice(1) } : {}) }
      : { shell: c.value };
  if (c.shell !== false && c.arguments?.length)
    throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: arguments need shell: false`);
  return { command, ...(Object.keys(env).length ? { env } : {}), ...(c.user ? { user: c.user } : {}), ...optional('uris', urisOf(c)) };
}

/** CommandInfo.uris as Arbiter's FetchUri (Mesos's `extract` defaults to true). */
function urisOf(c: MesosCommandInfo): FetchUri[] | undefined {
  if (!c.uris?.length) return undefined;
  return c.uris.map((u) => ({
    value: u.value,
    extract: u.extract ?? true,
    ...optional('executable', u.executable),
    ...optional('cache', u.cache),
    ...optional('outputFile', u.output_file),
  }));
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);
const seconds = (d: { nanoseconds: number } | undefined) => (d === undefined ? undefined : d.nanoseconds / 1e9);
const TASK_CODEC: TaskCodecParts = { command: (c, where) => commandOf(c, where), resources: fromMesosResources, container: containerOf };

/** A TaskInfo as Arbiter's TaskSpec, and the agent it names. */
export function taskOf(t: MesosTaskInfo, where: string): { spec: TaskSpec; agentId: string } {
  const present = MESOS_TASK_UNSUPPORTED.filter((f) => (t as Record<string, unknown>)[f] !== undefined);
  if (present.length)
    throw unsupported(`${where}: TaskInfo.${present.join(', TaskInfo.')}`, 'Arbiter has no resource limits above the resources');
  const grace = seconds(t.kill_policy?.grace_period);
  const deadline = seconds(t.max_completion_time);
  return {
    agentId: t.agent_id.value,
    spec: {
      taskId: t.task_id.value,
      name: t.name,
      resources: fromMesosResources(t.resources, `${where} resources`),
      // Mesos's rule: a command, or an executor that runs the task, not both.
      ...(t.executor && t.command !== undefined
        ? invalid(`${where}: a task gives a command or an executor, not both`)
        : t.executor
          ? { executor: executorOf(t.executor, where, TASK_CODEC) }
          : commandOf(t.command, where)),
      ...optional('container', t.container && containerOf(t.container, where)),
      ...optional('data', t.data),
      ...optional('labels', labelsOf(t.labels)),
      ...optional('discovery', t.discovery && discoveryOf(t.discovery)),
      ...optional('killPolicy', grace === undefined ? undefined : { gracePeriodSeconds: grace }),
      // Zero is no limit, as Mesos's command executor reads it.
      ...optional('maxCompletionTimeSeconds', deadline === 0 ? undefined : deadline),
      ...checksOf(t, where),
    },
  };
}

/** A launched task, as its TaskInfo names it. */
export interface LaunchedTask {
  taskId: string;
  agentId: string;
}

function operationOf(op: MesosOperation, i: number): { op: Operation; launched: LaunchedTask[] } {
  const where = `ACCEPT operation ${i} (${op.type})`;
  switch (op.type) {
    case 'LAUNCH':
    case 'LAUNCH_GROUP': {
      if (op.id) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: operation ids are not supported for launches`);
      const infos = op.type === 'LAUNCH' ? op.launch?.task_infos : op.launch_group?.task_group?.tasks;
      const executor = op.launch_group?.executor;
      if (op.type === 'LAUNCH_GROUP' && executor === undefined)
        throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `${where}: launch_group needs an executor`);
      const tasks = (infos ?? []).map((t, j) => taskOf(t, `${where} task ${j}`));
      // The agent fetches an executor's URIs before it starts; those of tasks handed to a running one are not fetched.
      const fetching = op.type === 'LAUNCH_GROUP' ? tasks.findIndex((t) => t.spec.uris) : -1;
      if (fetching >= 0)
        throw unsupported(
          `${where} task ${fetching}: command.uris`,
          "tasks of a group are not fetched for; give the URIs to the group's executor",
        );
      const specs = tasks.map((t) => t.spec);
      return {
        op:
          op.type === 'LAUNCH_GROUP' && executor
            ? { type: 'LAUNCH_GROUP', executor: executorOf(executor, where, TASK_CODEC), tasks: specs }
            : { type: 'LAUNCH', tasks: specs },
        launched: tasks.map((t) => ({ taskId: t.spec.taskId, agentId: t.agentId })),
      };
    }
    case 'RESERVE':
    case 'UNRESERVE':
      return { op: reservationOpOf(op, where, fromMesosResources), launched: [] };
    case 'CREATE':
    case 'DESTROY': {
      const volumes = (op.type === 'CREATE' ? op.create : op.destroy)?.volumes ?? [];
      const specs = volumes.map((v, j) => volumeOf(v, fromMesosResource(v, `${where} volume ${j}`), `${where} volume ${j}`));
      const id = op.id !== undefined ? { id: op.id.value } : {};
      const volumeOp: Operation =
        op.type === 'CREATE'
          ? { type: 'CREATE', ...id, volumes: specs }
          : { type: 'DESTROY', ...id, volumes: specs.map((v) => ({ id: v.id })) };
      return { op: volumeOp, launched: [] };
    }
    default:
      throw unsupported(`operation ${op.type}`, 'Arbiter has LAUNCH, LAUNCH_GROUP, RESERVE, UNRESERVE, CREATE and DESTROY');
  }
}

/**
 * An ACCEPT as Arbiter's Accept, with the tasks it launches and the agent each names (it must be
 * the offers'; should the accept be refused, they are the tasks reported back as dropped).
 */
export function acceptOf(call: MesosCall): { accept: Accept; launched: LaunchedTask[] } {
  const a = call.accept;
  if (!a) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "ACCEPT: the call needs an 'accept' field");
  const ops = (a.operations ?? []).map((op, i) => operationOf(op, i));
  return {
    accept: checked(
      Accept,
      {
        offerIds: (a.offer_ids ?? []).map((o) => o.value),
        operations: ops.map((o) => o.op),
        ...(a.filters?.refuse_seconds !== undefined ? { refuseSeconds: a.filters.refuse_seconds } : {}),
      },
      'ACCEPT',
    ),
    launched: ops.flatMap((o) => o.launched),
  };
}

export function declineOf(call: MesosCall): Decline {
  const d = call.decline;
  if (!d) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "DECLINE: the call needs a 'decline' field");
  return checked(
    Decline,
    {
      offerIds: (d.offer_ids ?? []).map((o) => o.value),
      ...(d.filters?.refuse_seconds !== undefined ? { refuseSeconds: d.filters.refuse_seconds } : {}),
    },
    'DECLINE',
  );
}

export function rolesCallOf(call: MesosCall, map: RoleMap): RolesCall {
  const roles = (call.type === 'SUPPRESS' ? call.suppress : call.revive)?.roles;
  return checked(RolesCall, roles?.length ? { roles: rolesOf(roles, map, call.type) } : {}, call.type);
}

export function killOf(call: MesosCall): Kill {
  const k = call.kill;
  if (!k) throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, "KILL: the call needs a 'kill' field");
  const ns = k.kill_policy?.grace_period?.nanoseconds;
  return checked(Kill, { taskId: k.task_id.value, ...(ns !== undefined ? { gracePeriodSeconds: ns / 1e9 } : {}) }, 'KILL');
}

// ---------------------------------------------------------------- events

/** A UUID (`xxxxxxxx-xxxx-...`) as Mesos's bytes field (base64 of its 16 bytes), and back. */
export function uuidToMesosBytes(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64');
}

export function mesosBytesToUuid(b64: string): string | undefined {
  if (!/^[A-Za-z0-9+/]{22}(==)?$/.test(b64)) return undefined;
  const hex = Buffer.from(b64, 'base64').toString('hex');
  if (hex.length !== 32) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
