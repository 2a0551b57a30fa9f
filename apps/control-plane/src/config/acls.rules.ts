/**
 * Mesos's ACLs (its local authorizer), in Mesos's JSON format:
 *
 *   { "permissive": false,
 *     "register_frameworks": [ { "principals": { "values": ["team-a"] }, "roles": { "values": ["a", "a/*"] } } ] }
 *
 * Each action has a list of entries, each naming its subjects (`principals`) and its objects
 * (the field ACL_OBJECTS names) as `{ "values": [...] }` or `{ "type": "ANY" | "NONE" }`. The
 * first entry whose subjects and objects both match the request decides it: allowed unless
 * either side is NONE (NONE matches everything and denies). When no entry matches, `permissive`
 * decides (default true). A role value `a/*` matches every role below `a` (not `a` itself), as
 * in Mesos; an agent value with `*` is a hostname glob (`node-*`, `*.rack-1.example.com`), the
 * `*` standing for any characters within one DNS label. Pure: no I/O. It is configuration
 * (`--acls` reads it at start, as the ACL API does), so it sits in config/, below auth/ and
 * acls/, which both read it.
 */
import { Role, ROLE_RULE } from '@arbiter/contracts';
import { z } from 'zod';

/** Each action and the name of its object field. */
export const ACL_OBJECTS = {
  register_frameworks: 'roles',
  run_tasks: 'users',
  teardown_frameworks: 'framework_principals',
  reserve_resources: 'roles',
  unreserve_resources: 'reserver_principals',
  /** Persistent volumes (CREATE), on the role whose reserved disk they take (Mesos's create_volumes). */
  create_volumes: 'roles',
  /** Persistent volumes (DESTROY), on the principal that created them (Mesos's destroy_volumes). */
  destroy_volumes: 'creator_principals',
  update_quotas: 'roles',
  update_weights: 'roles',
  view_frameworks: 'users',
  view_tasks: 'users',
  /** A task's sandbox files (browse, read, download), on its framework's user, besides view_tasks (Mesos's access_sandboxes). */
  access_sandboxes: 'users',
  view_roles: 'roles',
  view_agents: 'agents',
  view_audit: 'actor_principals',
  get_endpoints: 'paths',
  update_whitelist: 'agents',
  update_maintenance_schedule: 'machines',
  start_maintenance: 'machines',
  stop_maintenance: 'machines',
  drain_agents: 'agents',
  deactivate_agents: 'agents',
  mark_agents_gone: 'agents',
  register_agents: 'agents',
  /** What-if (POST /api/v1/simulate), on the roles the change names (`*` when it names none). */
  simulate: 'roles',
} as const;

export type AclAction = keyof typeof ACL_OBJECTS;
export const ACL_ACTIONS = Object.keys(ACL_OBJECTS) as AclAction[];

const Entity = z.union([
  z.object({ values: z.array(z.string().min(1).max(255)).min(1).max(10_000) }).strict(),
  z.object({ type: z.enum(['ANY', 'NONE']) }).strict(),
]);
type AclEntity = z.infer<typeof Entity>;

interface AclEntry {
  principals: AclEntity;
  objects: AclEntity;
}

export interface Acls {
  permissive: boolean;
  actions: Partial<Record<AclAction, AclEntry[]>>;
}

/** The shape of the JSON document; parseAcls checks each entry's object field. */
const AclDocument = z
  .object({
    permissive: z.boolean().optional(),
    ...Object.fromEntries(ACL_ACTIONS.map((a) => [a, z.array(z.record(z.string(), Entity)).max(10_000).optional()])),
  })
  .strict();

export const PERMISSIVE: Acls = { permissive: true, actions: {} };

/** A parsed ACL document, or the list of what is wrong with it. */
export function parseAcls(doc: unknown): { ok: true; acls: Acls } | { ok: false; errors: string[] } {
  const parsed = AclDocument.safeParse(doc);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`) };
  const errors: string[] = [];
  const acls: Acls = { permissive: parsed.data.permissive ?? true, actions: {} };
  for (const action of ACL_ACTIONS) {
    const entries = (parsed.data as Record<string, unknown>)[action] as Array<Partial<Record<string, AclEntity>>> | undefined;
    if (!entries) continue;
    const object = ACL_OBJECTS[action];
    acls.actions[action] = entries.flatMap((entry, i) => {
      const extra = Object.keys(entry).filter((k) => k !== 'principals' && k !== object);
      if (extra.length) errors.push(`${action}.${i}: unknown field '${extra.join("', '")}' (expected 'principals' and '${object}')`);
      if (!entry.principals) errors.push(`${action}.${i}: 'principals' is required`);
      if (!entry[object]) errors.push(`${action}.${i}: '${object}' is required`);
      const principals = entry.principals;
      const objects = entry[object];
      return principals && objects ? [{ principals, objects }] : [];
    });
  }
  return errors.length ? { ok: false, errors } : { ok: true, acls };
}

/**
 * Role objects that no role could match: a role value follows the one role rule (libs/contracts
 * Role) or names a subtree as `<role>/*`. Checked when ACLs are replaced, not when stored ones
 * are read (a stored document is never reinterpreted as a different policy).
 */
export function roleValueProblems(acls: Acls): string[] {
  const problems: string[] = [];
  for (const action of ACL_ACTIONS) {
    if (ACL_OBJECTS[action] !== 'roles') continue;
    (acls.actions[action] ?? []).forEach((entry, i) => {
      if ('type' in entry.objects) return;
      for (const value of entry.objects.values) {
        const role = value.endsWith('/*') ? value.slice(0, -2) : value;
        if (!Role.safeParse(role).success)
          problems.push(
            `${action}.${i}.roles: '${value}' ${ROLE_RULE}, or '<role>/*' for the roles below one; { "type": "ANY" } for any role`,
          );
      }
    });
  }
  return problems;
}

/** The document form of parsed ACLs (what GET /acls answers). */
export function aclsToDocument(acls: Acls): Record<string, unknown> {
  const doc: Record<string, unknown> = { permissive: acls.permissive };
  for (const action of ACL_ACTIONS) {
    const entries = acls.actions[action];
    if (entries) doc[action] = entries.map((e) => ({ principals: e.principals, [ACL_OBJECTS[action]]: e.objects }));
  }
  return doc;
}

/** How an action's object values are patterns: role subtrees (`a/*`), hostname globs (`node-*`), or exact values. */
type Patterns = 'roles' | 'hosts' | 'exact';

function patternsOf(action: AclAction): Patterns {
  const object = ACL_OBJECTS[action];
  return object === 'roles' ? 'roles' : object === 'agents' ? 'hosts' : 'exact';
}

/**
 * A hostname value as an anchored regular expression (also valid in PostgreSQL's `~`): `*` stands
 * for any run of characters within one DNS label (never a `.`); every other character is literal.
 */
export function hostPatternRegex(pattern: string): string {
  const parts = pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `^${parts.join('[^.]*')}$`;
}

function hostGlobMatches(pattern: string, hostname: string): boolean {
  return new RegExp(hostPatternRegex(pattern)).test(hostname);
}

function valueMatches(pattern: string, value: string, patterns: Patterns): boolean {
  if (pattern === value) return true;
  if (patterns === 'roles') return pattern.endsWith('/*') && value.startsWith(pattern.slice(0, -1));
  return patterns === 'hosts' && pattern.includes('*') && hostGlobMatches(pattern, value);
}

function matches(entity: AclEntity, value: string, patterns: Patterns = 'exact'): boolean {
  return 'type' in entity || entity.values.some((p) => valueMatches(p, value, patterns));
}

const denies = (entity: AclEntity) => 'type' in entity && entity.type === 'NONE';

/** Whether `principal` may do `action` on `object` (Mesos's first-match rule). */
export function isAuthorized(acls: Acls, action: AclAction, principal: string, object: string): boolean {
  for (const entry of acls.actions[action] ?? []) {
    if (matches(entry.principals, principal) && matches(entry.objects, object, patternsOf(action)))
      return !denies(entry.principals) && !denies(entry.objects);
  }
  return acls.permissive;
}

/**
 * What `principal` may do `action` on, for filtering lists: `except` values it may not (every
 * other allowed), or `only` the values it may. Exact for plain values; a role pattern `a/*`
 * is kept as a pattern (check roles one by one with isAuthorized).
 */
export type Scope = { only: string[] } | { except: string[] };

export function scopeOf(acls: Acls, action: AclAction, principal: string): Scope {
  const decided = new Map<string, boolean>();
  for (const entry of acls.actions[action] ?? []) {
    if (!matches(entry.principals, principal)) continue;
    const allow = !denies(entry.principals) && !denies(entry.objects);
    if ('type' in entry.objects) return scopeFrom(decided, allow);
    for (const v of entry.objects.values) if (!decided.has(v)) decided.set(v, allow);
  }
  return scopeFrom(decided, acls.permissive);
}

function scopeFrom(decided: Map<string, boolean>, rest: boolean): { only: string[] } | { except: string[] } {
  const pick = (allowed: boolean) => [...decided].filter(([, a]) => a === allowed).map(([v]) => v);
  return rest ? { except: pick(false) } : { only: pick(true) };
}

/**
 * What `principal` may do a hostname action on, for filtering lists in SQL: the entries' hostname
 * values as regular expressions (hostPatternRegex) in the order the first-match rule reads them,
 * each allowing or not, and `rest` for hostnames none of them matches. Exact even when globs overlap.
 */
export interface HostScope {
  rules: Array<{ regex: string; allow: boolean }>;
  rest: boolean;
}

export function hostScopeOf(acls: Acls, action: AclAction, principal: string): HostScope {
  const rules: HostScope['rules'] = [];
  for (const entry of acls.actions[action] ?? []) {
    if (!matches(entry.principals, principal)) continue;
    const allow = !denies(entry.principals) && !denies(entry.objects);
    if ('type' in entry.objects) return { rules, rest: allow };
    for (const v of entry.objects.values) rules.push({ regex: hostPatternRegex(v), allow });
  }
  return { rules, rest: acls.permissive };
}
