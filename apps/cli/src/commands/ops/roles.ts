/**
 * Roles, quota and weights from the operator's terminal:
 *   arbiter roles list [--watch]            every known role: weight, quota, allocation, reservations
 *   arbiter roles show ROLE
 *   arbiter quota list
 *   arbiter quota set ROLE [--guarantee "cpus:4;mem:8192"] [--limit "cpus:8"] [--force]
 *   arbiter quota rm ROLE
 *   arbiter weights list
 *   arbiter weights set ROLE=WEIGHT [ROLE=WEIGHT...]   all or nothing
 */
import type { Schema } from '@arbiter/contracts';
import type { Command } from 'commander';
import { ApiError, UsageError } from '../../ops/errors';
import { action, amounts, connect, connectionOptions, enc, type OutputFlags, readOptions, show, watchOptions } from '../../ops/output';
import { renderFields, renderTable } from '../../ops/table';

type Role = Schema<'RoleDto'>;
type Quota = Schema<'QuotaDto'>;
type Weight = Schema<'WeightDto'>;

const quotaText = (q: Quota | null | undefined) =>
  q
    ? [
        amounts(q.guarantees as Record<string, number>) && `guarantee ${amounts(q.guarantees as Record<string, number>)}`,
        amounts(q.limits as Record<string, number>) && `limit ${amounts(q.limits as Record<string, number>)}`,
      ]
        .filter(Boolean)
        .join(', ')
    : '';

export function rolesTable(roles: readonly Role[]): string {
  return renderTable<Role>(
    [
      { header: 'role', value: (r) => r.path },
      { header: 'weight', value: (r) => r.weight },
      { header: 'allocated', value: (r) => amounts(r.allocated) },
      { header: 'reserved', value: (r) => amounts(r.reserved) },
      { header: 'quota', value: (r) => quotaText(r.quota) },
      { header: 'frameworks', value: (r) => r.frameworks.length },
    ],
    roles,
  );
}

export function quotaTable(list: readonly Quota[]): string {
  return renderTable<Quota>(
    [
      { header: 'role', value: (q) => q.role },
      { header: 'guarantees', value: (q) => amounts(q.guarantees) },
      { header: 'limits', value: (q) => amounts(q.limits) },
    ],
    list,
  );
}

const weightsTable = (list: readonly Weight[]) =>
  renderTable<Weight>(
    [
      { header: 'role', value: (w) => w.role },
      { header: 'weight', value: (w) => w.weight },
    ],
    list,
  );

/** `eng=2` -> { role: 'eng', weight: 2 }; a UsageError for anything else. */
export function parseWeight(text: string): Weight {
  const m = /^([^=\s]+)=(\S+)$/.exec(text);
  const weight = m ? Number(m[2]) : NaN;
  if (!m || !(weight > 0)) throw new UsageError(`'${text}' must read ROLE=WEIGHT with a positive weight, e.g. eng=2`);
  return { role: m[1], weight };
}

interface QuotaFlags extends OutputFlags {
  guarantee?: string;
  limit?: string;
  force?: boolean;
}

export function registerRoles(program: Command): void {
  const roles = program.command('roles').description('roles: weights, quota, what they hold and which frameworks use them');
  watchOptions(roles.command('list').description('every known role')).action(
    action(async (flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<Role[]>('GET', '/api/v1/roles'), rolesTable);
    }),
  );
  readOptions(roles.command('show').description('one role in full').argument('<role>')).action(
    action(async (path: string, flags: OutputFlags) => {
      const client = await connect(flags);
      const find = async () => {
        const role = (await client.call<Role[]>('GET', '/api/v1/roles')).find((r) => r.path === path);
        if (!role) throw new ApiError(404, 'ROLE_NOT_FOUND', `no role '${path}' is known (arbiter roles list shows them)`);
        return role;
      };
      await show(flags, find, (r) =>
        renderFields([
          ['Role', r.path],
          ['Weight', r.weight],
          ['Quota', quotaText(r.quota)],
          ['Allocated', amounts(r.allocated as Record<string, number>)],
          ['Reserved', amounts(r.reserved as Record<string, number>)],
          ['Frameworks', r.frameworks.join(', ')],
        ]),
      );
    }),
  );

  const quota = program.command('quota').description("quota: a top-level role's guarantees and limits");
  readOptions(quota.command('list').description('every quota set')).action(
    action(async (flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<Quota[]>('GET', '/api/v1/quota'), quotaTable);
    }),
  );
  readOptions(
    quota
      .command('set')
      .description("set a role's quota (replaces the one it had)")
      .argument('<role>', 'a top-level role')
      .option('--guarantee <resources>', 'guaranteed amounts, Mesos text, e.g. "cpus:4;mem:8192"')
      .option('--limit <resources>', 'the most the role may hold, e.g. "cpus:8;mem:16384"')
      .option('--force', 'set guarantees beyond what the cluster has now'),
  ).action(
    action(async (role: string, flags: QuotaFlags) => {
      if (flags.guarantee === undefined && flags.limit === undefined)
        throw new UsageError('quota set needs --guarantee or --limit (or both)');
      const client = await connect(flags);
      const body = {
        quotas: [
          {
            role,
            ...(flags.guarantee !== undefined ? { guarantees: flags.guarantee } : {}),
            ...(flags.limit !== undefined ? { limits: flags.limit } : {}),
          },
        ],
        ...(flags.force ? { force: true } : {}),
      };
      const set = (await client.call<Quota[]>('PUT', '/api/v1/quota', body)).filter((q) => q.role === role);
      if (flags.json) console.log(JSON.stringify(set, null, 2));
      else console.log(`quota of ${role}: ${quotaText(set[0]) || 'none'}`);
    }),
  );
  connectionOptions(quota.command('rm').description("remove a role's quota").argument('<role>')).action(
    action(async (role: string, flags: OutputFlags) => {
      const client = await connect(flags);
      await client.call('DELETE', `/api/v1/quota/${enc(role)}`);
      console.log(`quota of ${role} removed`);
    }),
  );

  const weights = program.command('weights').description("weights: a role's share of the cluster relative to others (default 1)");
  readOptions(weights.command('list').description('the weights set explicitly')).action(
    action(async (flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<Weight[]>('GET', '/api/v1/weights'), weightsTable);
    }),
  );
  readOptions(
    weights
      .command('set')
      .description('set the weights of one or more roles (all or nothing)')
      .argument('<role=weight...>', 'e.g. eng=2 ops=0.5'),
  ).action(
    action(async (pairs: string[], flags: OutputFlags) => {
      const list = pairs.map(parseWeight);
      const client = await connect(flags);
      const all = await client.call<Weight[]>('PUT', '/api/v1/weights', { weights: list });
      const set = all.filter((w) => list.some((l) => l.role === w.role));
      if (flags.json) console.log(JSON.stringify(set, null, 2));
      else console.log(set.map((w) => `weight of ${w.role}: ${w.weight}`).join('\n'));
    }),
  );
}
