/** Every query of the frameworks API. */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Scope } from '../config/acls.rules';
import { FrameworkEntity, type FrameworkState } from './framework.entity';

@Injectable()
export class FrameworksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** `users`: the framework users the caller may see (the view_frameworks ACL). */
  async list(
    filter: { state?: FrameworkState; role?: string; users?: Scope },
    limit: number,
    offset: number,
  ): Promise<[FrameworkEntity[], number]> {
    const q = this.dataSource.manager.createQueryBuilder(FrameworkEntity, 'f');
    const users = filter.users;
    if (users && 'only' in users) q.andWhere("COALESCE(f.user, '') = ANY(:users)", { users: users.only });
    else if (users?.except.length) q.andWhere("COALESCE(f.user, '') <> ALL(:users)", { users: users.except });
    if (filter.state) q.andWhere('f.state = :state', { state: filter.state });
    if (filter.role) q.andWhere(':role = ANY(f.roles)', { role: filter.role });
    return q.orderBy('f.registered_at', 'DESC').addOrderBy('f.id').take(limit).skip(offset).getManyAndCount();
  }

  find(id: string): Promise<FrameworkEntity | null> {
    return this.dataSource.manager.findOne(FrameworkEntity, { where: { id } });
  }
}
