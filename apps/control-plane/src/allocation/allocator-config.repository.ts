/** What the master reads to configure its allocator: role weights, quotas and the whitelist. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { QuotaEntity } from '../roles/quota.entity';
import { RoleEntity } from '../roles/role.entity';
import { WhitelistEntity } from '../whitelist/whitelist.entity';

@Injectable()
export class AllocatorConfigRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  roles(): Promise<RoleEntity[]> {
    return this.dataSource.manager.find(RoleEntity);
  }

  quotas(): Promise<QuotaEntity[]> {
    return this.dataSource.manager.find(QuotaEntity);
  }

  quota(role: string): Promise<QuotaEntity | null> {
    return this.dataSource.manager.findOne(QuotaEntity, { where: { role } });
  }

  /** The whitelisted hostnames, or null when every agent may be offered. */
  async whitelist(): Promise<string[] | null> {
    return (await this.dataSource.manager.findOne(WhitelistEntity, { where: { id: 1 } }))?.hostnames ?? null;
  }
}
