/** The master's SQL of frameworks: subscriptions, disconnections, completion, suppressed roles. */
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull, Not } from 'typeorm';
import { MasterDatabase } from '../database/master-database';
import { FrameworkEntity, FrameworkState } from '../frameworks/framework.entity';

@Injectable()
export class FrameworkSessionsRepository {
  constructor(private readonly masterDb: MasterDatabase) {}

  /** The master's pool for the current leadership term (its writes are fenced). */
  private get dataSource(): DataSource {
    return this.masterDb.dataSource;
  }

  find(id: string): Promise<FrameworkEntity | null> {
    return this.dataSource.manager.findOne(FrameworkEntity, { where: { id } });
  }

  /** Frameworks that have not completed. */
  notCompleted(): Promise<FrameworkEntity[]> {
    return this.dataSource.manager.find(FrameworkEntity, { where: { state: Not(FrameworkState.COMPLETED) } });
  }

  /** How many frameworks of a principal (null: the anonymous ones) have not completed. */
  countNotCompleted(principal: string | null): Promise<number> {
    return this.dataSource.manager.count(FrameworkEntity, {
      where: { state: Not(FrameworkState.COMPLETED), principal: principal ?? IsNull() },
    });
  }

  save(row: FrameworkEntity): Promise<FrameworkEntity> {
    return this.dataSource.manager.save(FrameworkEntity, this.dataSource.manager.create(FrameworkEntity, row));
  }

  async markDisconnected(id: string, at: Date): Promise<void> {
    await this.dataSource.manager.update(FrameworkEntity, { id }, { state: FrameworkState.DISCONNECTED, disconnectedAt: at });
  }

  /** Completes the framework, with `within` (its audit entry) in the same transaction. */
  async markCompleted(id: string, at: Date, within: (tx: EntityManager) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.update(FrameworkEntity, { id }, { state: FrameworkState.COMPLETED, completedAt: at });
      await within(tx);
    });
  }

  /** Changes the framework's suppressed roles (adds or removes these), resolving with the new set. */
  async changeSuppressed(id: string, roles: string[], suppress: boolean): Promise<string[]> {
    const row = await this.dataSource.manager.findOneOrFail(FrameworkEntity, { where: { id } });
    const set = new Set(row.suppressedRoles);
    for (const r of roles) {
      if (suppress) set.add(r);
      else set.delete(r);
    }
    const suppressedRoles = [...set].sort();
    await this.dataSource.manager.update(FrameworkEntity, { id }, { suppressedRoles });
    return suppressedRoles;
  }
}
