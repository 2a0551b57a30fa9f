/**
 * The agent whitelist (Mesos's --whitelist, settable at run time): `null` lets every agent be
 * offered, a list only those hostnames, an empty list none. Besides replacing it whole, hostnames
 * can be added and removed (the dashboard's per-agent toggle). A change needs the update_whitelist
 * ACL for every hostname it adds or removes (turning the whitelist on or off: every agent, see
 * `changed`); a read shows the hostnames the view_agents ACL allows.
 */
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { Database, type Tx } from '../database/database.service';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../leadership/cluster-events';
import type { WhitelistChangeDto, WhitelistDto } from './whitelist.dto';
import { WhitelistRepository } from './whitelist.repository';

@Injectable()
export class WhitelistService {
  constructor(
    private readonly db: Database,
    private readonly repo: WhitelistRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
  ) {}

  async get(actor: Actor): Promise<WhitelistDto> {
    const hostnames = await this.repo.hostnames(this.db.manager);
    return { hostnames: hostnames?.filter((h) => this.acls.allows(actor, 'view_agents', h)) ?? null };
  }

  replace(hostnames: string[] | null, actor: Actor): Promise<WhitelistDto> {
    return this.update(actor, () => hostnames);
  }

  /** Adds and removes hostnames; removing from no whitelist starts one with every present agent. */
  change(change: WhitelistChangeDto, actor: Actor): Promise<WhitelistDto> {
    const add = change.add ?? [];
    const remove = new Set(change.remove ?? []);
    if (!add.length && !remove.size)
      throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, 'invalid request: name hostnames to add or remove', {
        errors: [{ field: 'add', problems: ['add or remove needs at least one hostname'] }],
      });
    const both = add.find((h) => remove.has(h));
    if (both)
      throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: '${both}' is both added and removed`, {
        errors: [{ field: 'remove', problems: [`'${both}' is also in add`] }],
      });
    return this.update(actor, async (previous, tx) => {
      if (previous === null && !remove.size) return null;
      const base = previous ?? (await this.repo.presentHostnames(tx));
      return [...base, ...add].filter((h) => !remove.has(h));
    });
  }

  /** One whitelist change: locked, audited, announced once committed. */
  private async update(
    actor: Actor,
    compute: (previous: string[] | null, tx: Tx) => string[] | null | Promise<string[] | null>,
  ): Promise<WhitelistDto> {
    const next = await this.db.transaction(async (tx) => {
      const previous = await this.repo.hostnames(tx, { lock: true });
      const computed = await compute(previous, tx);
      const value = computed === null ? null : [...new Set(computed)].sort();
      await this.acls.authorize(actor, 'update_whitelist', changed(previous, value), 'change the whitelist');
      await this.repo.save(tx, value, new Date());
      await this.audit.record(tx, actor, {
        action: 'whitelist.update',
        targetType: 'whitelist',
        targetId: null,
        before: { hostnames: previous },
        after: { hostnames: value },
      });
      return value;
    });
    this.events.emit({ type: 'whitelist.updated', hostnames: next });
    return { hostnames: next?.filter((h) => this.acls.allows(actor, 'view_agents', h)) ?? null };
  }
}

/**
 * The hostnames a change adds or removes. Turning the whitelist on or off concerns every agent:
 * `*` (which only an entry for agents of type ANY matches) and every hostname of the list.
 */
function changed(previous: string[] | null, next: string[] | null): string[] {
  if (previous === null && next === null) return [];
  if (previous === null || next === null) return ['*', ...(previous ?? next ?? [])];
  const before = new Set(previous);
  const after = new Set(next);
  return [...next.filter((h) => !before.has(h)), ...previous.filter((h) => !after.has(h))];
}
