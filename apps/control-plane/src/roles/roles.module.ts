/** Roles, weights and quota: the operator API (the allocator follows them through cluster events). */
import { Module } from '@nestjs/common';
import { RolesController } from './roles.controller';
import { RolesRepository } from './roles.repository';
import { RolesService } from './roles.service';
import { OwnsEntities } from '../database/database.entities';
import { RoleEntity } from './role.entity';
import { QuotaEntity } from './quota.entity';
import { MasterModule } from '../master/master.module';

@OwnsEntities(RoleEntity, QuotaEntity)
@Module({ imports: [MasterModule], controllers: [RolesController], providers: [RolesService, RolesRepository], exports: [RolesService] })
export class RolesModule {}
